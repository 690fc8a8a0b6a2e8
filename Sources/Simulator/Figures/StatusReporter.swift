/// The periodic status line: where the fleet stands and how its rate compares with the schedule
/// since the previous line. In logs, a line every interval; on a terminal, one line redrawn in
/// place.
final class StatusReporter {
    private let logger: Logger
    private let connections: Int
    /// Redraws one line on a terminal instead of logging lines.
    private let redraw: (@Sendable (String) -> Void)?
    private var previous = Totals()
    private var previousTime: UInt64?

    init(logger: Logger, connections: Int, start: UInt64, redraw: (@Sendable (String) -> Void)? = nil) {
        self.logger = logger
        self.connections = connections
        self.redraw = redraw
        previousTime = start
    }

    /// `ackP99` is the acknowledgement latency's p99 in nanoseconds so far, if any.
    func report(_ totals: Totals, ackP99: UInt64?, errors: Int, at now: UInt64) {
        var rates = ""
        if let previousTime, now > previousTime {
            let seconds = Double(now - previousTime) / 1e9
            let achieved = Double(totals[.published] - previous[.published]) / seconds
            let scheduled = Double(totals[.scheduled] - previous[.scheduled]) / seconds
            rates = ", \(formatRate(achieved)) msg/s of \(formatRate(scheduled)) scheduled"
        }
        let latency = ackP99.map { ", ack p99 \(formatRate(Double($0) / 1e6)) ms" } ?? ""
        let line = StatusReporter.line(totals, connections: connections) + rates + latency + ", errors \(errors)"
        if let redraw {
            redraw("\r\u{1B}[K" + line)
        } else {
            logger.info(line)
        }
        previous = totals
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
