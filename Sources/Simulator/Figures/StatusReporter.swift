import Report

/// The periodic status line: where the fleet stands and how its rate compares with the schedule
/// since the previous line. In logs, a line every interval; on a terminal, one line redrawn in
/// place.
final class StatusReporter {
    private let logger: Logger
    /// The fleet's connections now, which a reload or a scale changes.
    private let connections: () -> Int
    /// Redraws one line on a terminal instead of logging lines.
    private let redraw: (@Sendable (String) -> Void)?
    private var previous = Totals()
    private var previousLatency = Histogram()
    private var previousTime: UInt64?

    init(logger: Logger, connections: @escaping () -> Int, start: UInt64, redraw: (@Sendable (String) -> Void)? = nil) {
        self.logger = logger
        self.connections = connections
        self.redraw = redraw
        previousTime = start
    }

    /// `latency` is the acknowledgement latency recorded so far; the line gives the p99 of what
    /// was acknowledged since the previous line, and says so: the whole run's would smooth a knee
    /// away.
    /// `position`'s stage or capacity step under way comes first in the line.
    func report(_ totals: Totals, latency: Histogram, errors: Int, position: RunPosition = RunPosition(), at now: UInt64) {
        let connections = self.connections()
        var rates = ""
        var interval = ""
        var fields: [(key: String, value: Logger.Value)] = [
            ("connectionsUp", .integer(totals.connectionsUp)), ("connections", .integer(connections)),
        ]
        fields += position.statusFields
        fields += Figure.allCases.map { ($0.stringValue, .integer(totals[$0])) }
        if let previousTime, now > previousTime {
            let seconds = Double(now - previousTime) / 1e9
            interval = " over the last \(formatRate(seconds)) s"
            let achieved = Double(totals[.published] - previous[.published]) / seconds
            // Ticks kept back unchanged (onChange) were never to be sent.
            let scheduled = Double(totals[.scheduled] - totals[.unchanged] - previous[.scheduled] + previous[.unchanged]) / seconds
            rates = ", \(formatRate(achieved)) msg/s of \(formatRate(scheduled)) scheduled"
            fields += [
                ("intervalSeconds", .number(seconds, decimals: 3)), ("publishedPerSecond", .number(achieved, decimals: 1)),
                ("scheduledPerSecond", .number(scheduled, decimals: 1)),
            ]
        }
        let recent = latency.since(previousLatency)
        let ack = recent.isEmpty ? "" : ", ack p99 \(formatRate(Double(recent.percentile(99)) / 1e6)) ms\(interval)"
        if !recent.isEmpty { fields.append(("ackP99Ms", .number(Double(recent.percentile(99)) / 1e6, decimals: 3))) }
        fields.append(("errors", .integer(errors)))
        let line =
            (position.statusText.map { $0 + ": " } ?? "") + StatusReporter.line(totals, connections: connections) + rates + ack
            + ", errors \(errors)"
        if let redraw {
            redraw("\r\u{1B}[K" + line)
        } else if logger.format == .json {
            // The same figures as the words, as numbers in fields of their own, for whatever
            // reads the log; a text line keeps to the words.
            logger.log(.info, line, fields: fields)
        } else {
            logger.info(line)
        }
        previous = totals
        previousLatency = latency
        previousTime = now
    }

    /// Leaves the terminal's line for what comes after.
    func finish() {
        redraw?("\r\u{1B}[K")
    }

    static func line(_ t: Totals, connections: Int) -> String {
        "connections \(t.connectionsUp)/\(connections) up, " + Figure.line(t.figures, \.isInStatusLine)
    }

    private func formatRate(_ rate: Double) -> String {
        let tenths = (rate * 10).rounded()
        return "\(Int(tenths) / 10).\(abs(Int(tenths) % 10))"
    }
}
