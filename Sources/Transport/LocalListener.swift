import Glibc
import Reactor

/// A listening Unix socket for one connection attempt, for libmosquitto to connect to: the
/// bridge's side of the MQTT bytes. libmosquitto 2.0 connects to a path when given port 0, with a
/// non-blocking `connect` that a listening socket with room in its backlog completes at once, so
/// the connection it made is the one `accept()` returns right after. The socket file lives in a
/// folder of the process's own (mode 0700) and is unlinked as soon as the connection is taken.
package final class LocalListener {
    package let path: String
    private var descriptor: Int32

    /// `socket`, `bind` and `listen` at a new path.
    package init() throws(SystemError) {
        path = Self.directory + "/\(getpid())-\(Self.nextNumber()).sock"
        // Non-blocking, so that an `accept()` with no connection waiting fails instead of
        // holding the loop's thread for ever.
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        guard let socket = try systemCall("socket", { Glibc.socket(AF_UNIX, type, 0) }) else {
            throw SystemError(call: "socket", errno: EAGAIN)
        }
        descriptor = socket
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let fits = withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            let bytes = Array(path.utf8)
            guard bytes.count < buffer.count else { return false }
            buffer.copyBytes(from: bytes)
            return true
        }
        guard fits else {
            close(socket)
            throw SystemError(call: "bind", errno: ENAMETOOLONG)
        }
        do throws(SystemError) {
            _ = try systemCall("bind") {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
                }
            }
            _ = try systemCall("listen") { listen(socket, 1) }
        } catch {
            close(socket)
            unlink(path)
            throw error
        }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        unlink(path)
    }

    /// The connection libmosquitto made, non-blocking; the listener is closed and its file gone.
    package func accept() throws(SystemError) -> Int32 {
        defer {
            close(descriptor)
            descriptor = -1
            unlink(path)
        }
        let listener = descriptor
        guard let connection = try systemCall("accept", { Glibc.accept(listener, nil, nil) }) else {
            throw SystemError(call: "accept", errno: EAGAIN)
        }
        _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
        _ = fcntl(connection, F_SETFL, fcntl(connection, F_GETFL) | O_NONBLOCK)
        return connection
    }

    /// The process's folder for the sockets: made once, under `TMPDIR` (else /tmp), removed at exit.
    private static let directory: String = {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/devsim-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) } != nil
        let path = made ? template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } : base
        if made { atexit { LocalListener.removeDirectory() } }
        return path
    }()

    private static func removeDirectory() {
        rmdir(directory)
    }

    private static let counter = Locked(0)

    private static func nextNumber() -> Int {
        counter.withLock { value in
            value += 1
            return value
        }
    }
}
