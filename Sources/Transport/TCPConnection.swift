import Glibc
import Reactor

/// A non-blocking TCP connection to `host:port`, under way or made. The name is resolved with
/// `getaddrinfo`, which blocks, as libmosquitto's own connect does; the first address a socket
/// can be started toward is the one tried.
package struct TCPConnection {
    package let descriptor: Int32

    /// Starts connecting; the descriptor becomes writable when the connection is made or failed
    /// (`finishConnect()` says which). Throws a sentence: "cannot resolve host 'x'".
    /// With `bindAddress`, from that local address (`bind(2)` before the connect; only
    /// addresses of its family are tried), as libmosquitto's `bind_address`.
    package init(host: String, port: Int32, bindAddress: String? = nil) throws(TransportError) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let list else {
            throw TransportError(
                "cannot resolve host '\(host)'" + (rc == EAI_NONAME || rc == EAI_AGAIN ? "" : ": " + String(cString: gai_strerror(rc))))
        }
        defer { freeaddrinfo(list) }
        var lastErrno: Int32 = 0
        var lastError: String?
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let address = entry {
            entry = address.pointee.ai_next
            let socket = Glibc.socket(
                address.pointee.ai_family, address.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                address.pointee.ai_protocol)
            guard socket >= 0 else {
                lastErrno = errno
                continue
            }
            var one: Int32 = 1
            _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if let bindAddress, let problem = SourceAddress.bind(socket, to: bindAddress, family: address.pointee.ai_family) {
                lastError = problem
                close(socket)
                continue
            }
            if connect(socket, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 || errno == EINPROGRESS {
                descriptor = socket
                return
            }
            lastErrno = errno
            close(socket)
        }
        throw TransportError("cannot connect: " + (lastError ?? String(cString: strerror(lastErrno))))
    }

    /// After the descriptor became writable: nil once connected, else why not (`SO_ERROR`).
    package func finishConnect() -> TransportError? {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else {
            return TransportError("cannot connect: \(String(cString: strerror(errno)))")
        }
        return code == 0 ? nil : TransportError("cannot connect: \(String(cString: strerror(code)))")
    }
}
