import Reactor

/// The dry run's virtual clock: the timers of every device and role of the dry run in one heap,
/// fired in deadline order on the calling thread, the time jumping from one to the next.
final class DryRunClock {
    var heap = TimerHeap()
    /// Nanoseconds from every connection's CONNACK.
    private(set) var now: UInt64 = 0

    /// The next timer due at `end` or before, the clock moved on to its deadline.
    func popDue(by end: UInt64) -> Timer? {
        guard let timer = heap.popDue(now: end)?.takeUnretainedValue() else { return nil }
        now = max(now, timer.deadline)
        return timer
    }
}
