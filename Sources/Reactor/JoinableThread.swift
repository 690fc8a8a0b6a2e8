import Glibc

/// A POSIX thread running one closure, that can be waited for: `pthread_create`, `pthread_join`.
/// Foundation's `Thread` cannot be joined, and whoever stops a loop or a probe must know its
/// thread is gone.
package final class JoinableThread: Sendable {
    /// Carries the closure through `pthread_create`'s untyped context pointer.
    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    package let handle: pthread_t

    /// Starts `body` on a new thread, which holds it until it returns.
    package init(_ body: @escaping @Sendable () -> Void) throws(SystemError) {
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(
            &thread, nil,
            { raw in
                let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
                box.body()
                return nil
            }, context)
        guard rc == 0 else {
            Unmanaged<Box>.fromOpaque(context).release()
            throw SystemError(call: "pthread_create", errno: rc)
        }
        handle = thread
    }

    /// Waits for the closure to return. Once only.
    package func join() {
        pthread_join(handle, nil)
    }
}
