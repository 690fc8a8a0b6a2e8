import Glibc

/// Where `--http` listens: `ADDR:PORT`, `[IPv6]:PORT`, or a port alone, on loopback
/// (127.0.0.1). Only addresses: a name would have to be resolved, and which of its addresses to
/// bind is a question the user should answer.
package struct HTTPAddress: Sendable, Equatable, CustomStringConvertible {
    package var host: String
    package var port: Int

    /// The address a port alone means: loopback, reachable from this machine only.
    package static let loopback = "127.0.0.1"
    package static let defaultPort = 9180

    package init(host: String = HTTPAddress.loopback, port: Int) {
        self.host = host
        self.port = port
    }

    /// Reads `9180`, `127.0.0.1:9180`, `0.0.0.0:9180` or `[::1]:9180`.
    package static func parse(_ text: String) throws(HTTPServerError) -> HTTPAddress {
        func port(_ text: Substring) throws(HTTPServerError) -> Int {
            guard let port = Int(text), (0...65535).contains(port) else {
                throw HTTPServerError("expected a port from 0 to 65535, found '\(text)'")
            }
            return port
        }
        if !text.contains(":") { return HTTPAddress(port: try port(Substring(text))) }
        var host: Substring
        let portText: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw HTTPServerError("expected [ADDRESS]:PORT, found '\(text)'") }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":"), text.filter({ $0 == ":" }).count == 1 else {
                throw HTTPServerError("expected ADDRESS:PORT (an IPv6 address in brackets), found '\(text)'")
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        if host.isEmpty { host = Substring(loopback) }
        let address = HTTPAddress(host: String(host), port: try port(portText))
        guard address.family != nil else {
            throw HTTPServerError("'\(host)' is not an IP address: give one, such as 127.0.0.1, 0.0.0.0 or [::1]")
        }
        return address
    }

    private var family: Int32? {
        var buffer = in6_addr()
        if inet_pton(AF_INET, host, &buffer) == 1 { return AF_INET }
        if inet_pton(AF_INET6, host, &buffer) == 1 { return AF_INET6 }
        return nil
    }

    /// Whether only this machine can reach it: 127.0.0.0/8 or ::1.
    package var isLoopback: Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        return host == "::1"
    }

    package var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The `sockaddr` to bind, for the length of `body`.
    func withSocketAddress<T>(_ body: (UnsafePointer<sockaddr>) -> T) -> T {
        if family == AF_INET6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            _ = inet_pton(AF_INET6, host, &address.sin6_addr)
            return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        _ = inet_pton(AF_INET, host, &address.sin_addr)
        return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
    }
}
