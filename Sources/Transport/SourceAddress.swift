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
    /// closed at once. Returns why not, or `nil`. Where the kernel binds addresses it does not
    /// have (`net.ipv4.ip_nonlocal_bind`, set for a floating address), the bind proves nothing
    /// and every connect from a stranger would fail after ("Cannot assign requested address"):
    /// there the machine's interfaces answer.
    package static func check(_ address: String) -> String? {
        var v4 = in_addr()
        let family = inet_pton(AF_INET, address, &v4) == 1 ? AF_INET : AF_INET6
        let socket = Glibc.socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { return "cannot make a socket to try \(address): \(String(cString: strerror(errno)))" }
        defer { close(socket) }
        if let problem = bind(socket, to: address, family: family) { return problem }
        let setting = "net.ipv\(family == AF_INET ? 4 : 6).ip_nonlocal_bind"
        guard bindsAnyAddress(setting), !isOnAnInterface(address, family: family) else { return nil }
        return "\(address) is not an address of this machine: no interface has it, and the kernel binds it all the same "
            + "(\(setting) is on), so every connection from it would fail"
    }

    /// Whether the sysctl `setting` (`net.ipv4.ip_nonlocal_bind`), of this process's network
    /// namespace, is on.
    private static func bindsAnyAddress(_ setting: String) -> Bool {
        guard let file = fopen("/proc/sys/" + setting.split(separator: ".").joined(separator: "/"), "r") else { return false }
        defer { fclose(file) }
        return fgetc(file) == Int32(UInt8(ascii: "1"))
    }

    /// Whether an interface has `address`: as its own, or, on a loopback interface, within its
    /// prefix (127.0.0.2 is local through lo's 127.0.0.1/8).
    static func isOnAnInterface(_ address: String, family: Int32) -> Bool {
        var wanted = [UInt8](repeating: 0, count: 16)
        guard inet_pton(family, address, &wanted) == 1 else { return false }
        let length = family == AF_INET ? 4 : 16
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return false }
        defer { freeifaddrs(list) }
        var entry = list
        while let current = entry?.pointee {
            entry = current.ifa_next
            guard let own = current.ifa_addr, Int32(own.pointee.sa_family) == family else { continue }
            let loopback = current.ifa_flags & UInt32(IFF_LOOPBACK) != 0
            let mask = loopback ? current.ifa_netmask.map { bytes(of: $0, family: family) } : nil
            let mine = bytes(of: own, family: family)
            if (0..<length).allSatisfy({ (wanted[$0] ^ mine[$0]) & (mask?[$0] ?? 0xFF) == 0 }) { return true }
        }
        return false
    }

    /// The address bytes of a `sockaddr_in` or `sockaddr_in6`.
    private static func bytes(of address: UnsafeMutablePointer<sockaddr>, family: Int32) -> [UInt8] {
        if family == AF_INET {
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin_addr) { Array($0) } }
        }
        return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin6_addr) { Array($0) } }
    }
}
