import Glibc
import Reactor
import Report
import Synchronization

/// This machine's own scheduling delay while a capacity search runs, as `cyclictest` measures
/// it: a thread that asks to wake every millisecond, on an absolute deadline, records how late
/// it wakes. A load generator cannot be more punctual than that: lateness within it is the
/// machine's (its other work, a hypervisor's steal), not devsim's.
final class SchedulingProbe: Sendable {
    private let delays = Locked(Histogram())
    private let stopping = Atomic<Bool>(false)
    private let thread = Locked<JoinableThread?>(nil)
    private static let interval: UInt64 = 1_000_000

    /// How late its wake-ups were so far, in nanoseconds.
    var histogram: Histogram { delays.withLock { $0 } }

    func start() throws(SystemError) {
        let started = try JoinableThread { [self] in run() }
        thread.withLock { $0 = started }
    }

    /// Ends the thread and waits for it.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        // The probe's thread never takes this lock: joined under it, it ends all the same.
        thread.withLock { thread in
            thread?.join()
            thread = nil
        }
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
