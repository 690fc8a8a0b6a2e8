import Glibc

/// Nanoseconds on `CLOCK_MONOTONIC`: the clock every deadline in devsim is kept on, so wall-clock
/// steps (NTP, a user changing the date) never bend a schedule.
package enum MonotonicClock {
    package static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }
}

extension MonotonicClock {
    /// `seconds` as nanoseconds, saturating instead of trapping: a duration of a million days is
    /// a user's choice, not a crash.
    package static func nanoseconds(_ seconds: Double) -> UInt64 {
        guard seconds > 0 else { return 0 }
        let value = seconds * 1e9
        return value >= 1.8e19 ? UInt64.max / 2 : UInt64(value)
    }

    /// `duration` as nanoseconds, saturating as `nanoseconds(_:)` of seconds does.
    package static func nanoseconds(_ duration: Duration) -> UInt64 {
        nanoseconds(duration / .seconds(1))
    }

    /// `now()` in seconds, for code that reasons in seconds.
    package static func seconds() -> Double {
        Double(now()) / 1e9
    }
}
