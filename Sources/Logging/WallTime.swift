import Glibc

/// A moment on the real-time clock, printable as ISO 8601 in UTC with milliseconds.
public struct WallTime: Sendable {
    public var secondsSinceEpoch: Double

    public static func now() -> WallTime {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return WallTime(secondsSinceEpoch: Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9)
    }

    /// `2026-11-29T12:00:00.123Z`.
    package var iso8601: String {
        let millis = Int64((secondsSinceEpoch * 1000).rounded(.down))
        var seconds = time_t(millis / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(millis % 1000), 3))Z"
    }
}
