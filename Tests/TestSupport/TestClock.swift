import Glibc

/// Seconds on the monotonic clock, for recording when things happened in tests.
///
/// Wall-clock time can jump (NTP, manual changes); recorded timestamps are compared with each
/// other, so they must come from a clock that only moves forward.
public enum TestClock {
    /// The current `CLOCK_MONOTONIC` reading in seconds.
    public static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1_000_000_000
    }

    /// Sleeps the calling thread for `seconds` (no-op for zero or less).
    public static func sleep(_ seconds: Double) {
        guard seconds > 0 else { return }
        var request = timespec(
            tv_sec: Int(seconds),
            tv_nsec: Int((seconds - Double(Int(seconds))) * 1_000_000_000))
        var remaining = timespec()
        // nanosleep returns early on signals; keep sleeping for what is left.
        while nanosleep(&request, &remaining) == -1 && errno == EINTR {
            request = remaining
        }
    }

    /// Polls `condition` every few milliseconds until it holds or `timeout` seconds pass.
    ///
    /// Polling keeps every wait in the fixtures bounded and free of lost-wakeup bugs; the few
    /// milliseconds of latency do not matter to tests.
    /// - Returns: whether the condition held before the deadline.
    public static func wait(timeout: Double, interval: Double = 0.005, until condition: () -> Bool) -> Bool {
        let deadline = now() + timeout
        while true {
            if condition() { return true }
            if now() >= deadline { return false }
            sleep(min(interval, max(0, deadline - now())))
        }
    }
}
