import Glibc

/// A value that several threads share, behind a `pthread_mutex_t`: `Synchronization.Mutex`'s
/// interface (`withLock`), with a lock ThreadSanitizer can see.
///
/// Why not `Mutex` itself: on Linux it hands a contended lock over in the kernel
/// (`FUTEX_LOCK_PI`), where ThreadSanitizer cannot follow, so two threads taking one `Mutex` in
/// turn looked like a data race to `scripts/tsan.sh` whenever they met (a CI run: 13 reports, all
/// on state touched only under the lock; a quiet run: none). ThreadSanitizer intercepts
/// `pthread_mutex_lock`, so with this type its reports mean something again. Not for the hot
/// path: what a loop owns is confined to its thread and takes no lock at all.
package final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let initialized = pthread_mutex_init(mutex, nil)
        precondition(initialized == 0, "pthread_mutex_init failed")
        value = initialValue
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, the lock held: `pthread_mutex_lock`, `pthread_mutex_unlock`.
    /// Not reentrant: taking the lock again inside `body` deadlocks.
    package func withLock<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        // Called outside `precondition`, whose condition -Ounchecked would not evaluate.
        let locked = pthread_mutex_lock(mutex)
        precondition(locked == 0, "pthread_mutex_lock failed")
        defer {
            let unlocked = pthread_mutex_unlock(mutex)
            precondition(unlocked == 0, "pthread_mutex_unlock failed")
        }
        return try body(&value)
    }
}
