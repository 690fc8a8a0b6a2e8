import Report

/// A recording's end: what it holds and why it ended.
package struct RecordResult: Sendable {
    package var tally: RecordTally
    package var end: RecordEnd
    /// Seconds from the subscription granted to the end; `nil` if it was never granted.
    package var seconds: Double?
    /// Where the recording is; `nil` when nothing was subscribed, and the file was removed.
    package var path: String?

    /// `120 messages on 3 topics, 4.2 kB over 6.0s, 1 gap (2.1s away)`, and what was left out.
    package var line: String {
        var line = RecordStatus.line(tally) + (seconds.map { " over " + formatSeconds($0) } ?? "")
        if tally.gaps > 0 { line += ", \(Text.counted(tally.gaps, "gap")) (\(formatSeconds(tally.secondsAway)) away)" }
        if tally.retainedCopies > 0 {
            line += ", \(Text.counted(tally.retainedCopies, "retained message")) sent again after a reconnect left out"
        }
        if tally.afterEnd > 0 { line += ", \(Text.counted(tally.afterEnd, "message")) after the end left out" }
        return line
    }
}
