import Glibc

/// Nanoseconds on `CLOCK_MONOTONIC`: the clock every deadline in devsim is kept on, so wall-clock
/// steps (NTP, a user changing the date) never bend a schedule.
public enum MonotonicClock {
    public static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }
}
