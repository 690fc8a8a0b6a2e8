import Glibc

/// A failed system call (`epoll_ctl`, `eventfd`, `read`, `pthread_create`…): its name and the raw
/// `errno`, kept as it is so that codes this file does not name survive with the system's text.
package struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    package let call: String
    package let errno: Int32

    package init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    package var description: String {
        "\(call): \(String(cString: strerror(errno)))"
    }
}

/// The one policy for calls that return -1 and set `errno`: an interrupted call (`EINTR`) is made
/// again; `EAGAIN` (nothing to read, no room to write on a non-blocking descriptor) is `nil`, not
/// an error; any other failure throws, naming `call`.
@inline(__always)
package func systemCall<Result: BinaryInteger>(_ call: String, _ body: () -> Result) throws(SystemError) -> Result? {
    while true {
        let result = body()
        if result >= 0 { return result }
        let code = Glibc.errno
        if code == EINTR { continue }
        if code == EAGAIN || code == EWOULDBLOCK { return nil }
        throw SystemError(call: call, errno: code)
    }
}
