/// A loop refused a job because it has stopped: the job will never run (`EventLoop.submit`).
package struct EventLoopStopped: Error, CustomStringConvertible {
    /// The loop's name.
    package let loop: String

    package var description: String { "event loop '\(loop)' has stopped: it runs no more jobs" }
}
