import Glibc

/// Small TCP helpers on 127.0.0.1, the only network the tests use.
public enum Loopback {
    /// A port that was free a moment ago: bind to port 0, read what the kernel chose, close.
    ///
    /// Another process may take the port before the caller binds it; callers that bind retry
    /// with a fresh port when that happens.
    public static func freePort() throws(TestSupportError) -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError("socket failed: \(errnoText())") }
        defer { close(fd) }
        var address = socketAddress(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw TestSupportError("bind to 127.0.0.1:0 failed: \(errnoText())") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw TestSupportError("getsockname failed: \(errnoText())") }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port` right now.
    /// The probe connection is closed at once.
    public static func acceptsConnections(port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = socketAddress(port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return result == 0
    }

    /// A socket listening on 127.0.0.1 at a port the kernel chose (binding port 0 directly: no
    /// race for it), and the port.
    static func listen(backlog: Int32 = 128) throws(TestSupportError) -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError("socket failed: \(errnoText())") }
        var address = socketAddress(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && Glibc.listen(fd, backlog) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard listening else {
            let message = errnoText()
            close(fd)
            throw TestSupportError("cannot listen on 127.0.0.1: \(message)")
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// The next connection to `listener`, close-on-exec, once one comes; `nil` once `stopping`,
    /// which is asked every 50 ms.
    static func accept(_ listener: Int32, unless stopping: () -> Bool) -> Int32? {
        while !stopping() {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            let fd = Glibc.accept(listener, nil, nil)
            guard fd >= 0 else { continue }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            return fd
        }
        return nil
    }

    /// `127.0.0.1:port` as a socket address.
    static func socketAddress(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7f00_0001).bigEndian)
        return address
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}
