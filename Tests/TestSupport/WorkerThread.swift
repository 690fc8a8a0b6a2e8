import Glibc
import Reactor

/// A joinable thread running one closure, for the fixtures (`JoinableThread`), failing as they
/// fail: the fixtures must be able to promise that no background work outlives `stop()`.
final class WorkerThread: Sendable {
    private let thread: JoinableThread

    /// Starts `body` on a new thread.
    init(_ body: @escaping @Sendable () -> Void) throws(TestSupportError) {
        do {
            thread = try JoinableThread(body)
        } catch {
            throw TestSupportError("pthread_create failed: \(String(cString: strerror(error.errno)))")
        }
    }

    /// Waits for the closure to return. Call exactly once.
    func join() {
        thread.join()
    }
}
