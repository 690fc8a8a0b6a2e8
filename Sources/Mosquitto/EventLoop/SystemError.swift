import Glibc

/// A failed system call (`epoll_*`, `eventfd`, `pthread_create`), with its errno.
public struct SystemError: Error, Sendable, CustomStringConvertible {
    public let call: String
    public let errno: Int32

    public var description: String {
        "\(call): \(String(cString: strerror(errno)))"
    }
}

/// Runs a system call that returns -1 on failure, retrying on EINTR.
@inline(__always)
func retryingInterrupts(_ call: String, _ body: () -> Int32) throws(SystemError) -> Int32 {
    while true {
        let result = body()
        if result >= 0 { return result }
        if errno == EINTR { continue }
        throw SystemError(call: call, errno: errno)
    }
}
