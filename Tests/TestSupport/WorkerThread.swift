import Glibc

/// A joinable POSIX thread running one closure.
///
/// Foundation's `Thread` cannot be joined, and the fixtures must be able to promise that no
/// background work outlives `stop()`.
final class WorkerThread: Sendable {
    /// Carries the closure through `pthread_create`'s untyped context pointer.
    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    private let handle: pthread_t

    /// Starts `body` on a new thread.
    init(_ body: @escaping @Sendable () -> Void) throws(TestSupportError) {
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { raw in
                let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
                box.body()
                return nil
            }, context)
        guard result == 0 else {
            Unmanaged<Box>.fromOpaque(context).release()
            throw TestSupportError("pthread_create failed: \(String(cString: strerror(result)))")
        }
        handle = thread
    }

    /// Waits for the closure to return. Call exactly once.
    func join() {
        pthread_join(handle, nil)
    }
}
