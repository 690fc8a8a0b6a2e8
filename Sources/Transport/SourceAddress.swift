import Glibc

/// A local source address for a socket (`broker.bind`, `--bind`): the WebSocket bridge's
/// connections bind to it as libmosquitto's do, and the run's checks try it before connecting.
package enum SourceAddress {
    /// `bind(2)` of `socket` to `address` (numeric), port 0 (the kernel picks one). Returns why
    /// not, in words, or `nil` once bound; an address of another family than `family` is
    /// refused without a call.
    package static func bind(_ socket: Int32, to address: String, family: Int32) -> String? {
        var storage = sockaddr_storage()
        var length: socklen_t
        if family == AF_INET {
            var v4 = sockaddr_in()
            v4.sin_family = sa_family_t(AF_INET)
            guard inet_pton(AF_INET, address, &v4.sin_addr) == 1 else { return "\(address) is not an IPv4 address" }
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: withUnsafeBytes(of: v4) { UnsafeRawBufferPointer($0) }) }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        } else if family == AF_INET6 {
            var v6 = sockaddr_in6()
            v6.sin6_family = sa_family_t(AF_INET6)
            guard inet_pton(AF_INET6, address, &v6.sin6_addr) == 1 else { return "\(address) is not an IPv6 address" }
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: withUnsafeBytes(of: v6) { UnsafeRawBufferPointer($0) }) }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        } else {
            return "\(address) is of another address family than the broker's"
        }
        let rc = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(socket, $0, length) }
        }
        guard rc != 0 else { return nil }
        let code = errno
        if code == EADDRNOTAVAIL { return "cannot bind to \(address): it is not an address of this machine" }
        return "cannot bind to \(address): \(String(cString: strerror(code)))"
    }

    /// `AF_INET` or `AF_INET6` for a numeric address, `nil` for a name (which may resolve to
    /// either).
    package static func family(of address: String) -> Int32? {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, address, &v4) == 1 { return AF_INET }
        if inet_pton(AF_INET6, address, &v6) == 1 { return AF_INET6 }
        return nil
    }

    /// Whether this machine can connect from `address`: a `bind(2)` of a TCP socket to it,
    /// closed at once. Returns why not, or `nil`.
    package static func check(_ address: String) -> String? {
        var v4 = in_addr()
        let family = inet_pton(AF_INET, address, &v4) == 1 ? AF_INET : AF_INET6
        let socket = Glibc.socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { return "cannot make a socket to try \(address): \(String(cString: strerror(errno)))" }
        defer { close(socket) }
        return bind(socket, to: address, family: family)
    }
}
