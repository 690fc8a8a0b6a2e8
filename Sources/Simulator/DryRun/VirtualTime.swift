/// A time on the dry run's virtual clock, from the start (every connection's CONNACK), as a
/// person and `jq` both read it: `+01:02:05.250`. Hours take two digits (more past 99), and
/// milliseconds are always there, so the lines of a run under 100 hours compare as text
/// (`select(.at >= "+02:00" and .at < "+05:00")`) and sort by time.
package enum VirtualTime {
    package static func text(_ seconds: Double) -> String {
        let milliseconds = Int((max(0, seconds) * 1000).rounded())
        let (hours, rest) = milliseconds.quotientAndRemainder(dividingBy: 3_600_000)
        func padded(_ value: Int, _ digits: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }
        return "+" + padded(hours, 2) + ":" + padded(rest / 60_000, 2) + ":" + padded(rest % 60_000 / 1000, 2) + "."
            + padded(rest % 1000, 3)
    }
}
