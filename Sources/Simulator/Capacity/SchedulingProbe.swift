import Glibc
import Reactor
import Synchronization

/// This machine's own scheduling delay while a capacity search runs, as `cyclictest` measures
/// it: a thread that asks to wake every millisecond, on an absolute deadline, records how late
/// it wakes. A load generator cannot be more punctual than that: lateness within it is the
/// machine's (its other work, a hypervisor's steal), not devsim's.
final class SchedulingProbe: @unchecked Sendable {
    private let delays = Locked(Histogram())
    private let stopping = Atomic<Bool>(false)
    private var thread: pthread_t?
    private static let interval: UInt64 = 1_000_000

    /// How late its wake-ups were so far, in nanoseconds.
    var histogram: Histogram { delays.withLock { $0 } }

    /// Starts the thread: `pthread_create`.
    func start() throws(SystemError) {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(
            &thread, nil,
            { context in
                let probe = Unmanaged<SchedulingProbe>.fromOpaque(context!).takeRetainedValue()
                probe.run()
                return nil
            }, context)
        guard rc == 0 else {
            Unmanaged<SchedulingProbe>.fromOpaque(context).release()
            throw SystemError(call: "pthread_create", errno: rc)
        }
        self.thread = thread
    }

    /// Ends the thread and waits for it.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        if let thread { pthread_join(thread, nil) }
        thread = nil
    }

    private func run() {
        var deadline = MonotonicClock.now()
        while !stopping.load(ordering: .relaxed) {
            deadline &+= Self.interval
            var spec = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &spec, nil) == EINTR {}
            let now = MonotonicClock.now()
            delays.withLock { $0.record(now > deadline ? now - deadline : 0) }
            // Behind by more than a period (the machine stalled): from now, not in a burst.
            if now > deadline &+ Self.interval { deadline = now }
        }
    }
}
