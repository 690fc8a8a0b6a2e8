/// The periodic status line: where the fleet stands and how its rate compares with the schedule
/// since the previous line.
final class StatusReporter {
    private let logger: Logger
    private let connections: Int
    private var previous = Totals()
    private var previousTime: UInt64?

    init(logger: Logger, connections: Int, start: UInt64) {
        self.logger = logger
        self.connections = connections
        previousTime = start
    }

    func report(_ totals: Totals, at now: UInt64) {
        var rates = ""
        if let previousTime, now > previousTime {
            let seconds = Double(now - previousTime) / 1e9
            let achieved = Double(totals.published - previous.published) / seconds
            let scheduled = Double(totals.scheduled - previous.scheduled) / seconds
            rates = ", rate \(formatRate(achieved))/s of \(formatRate(scheduled))/s scheduled"
        }
        logger.info(StatusReporter.line(totals, connections: connections) + rates)
        previous = totals
        previousTime = now
    }

    static func line(_ t: Totals, connections: Int) -> String {
        "connections \(t.connectionsUp)/\(connections) up, published \(t.published), acknowledged \(t.acknowledged), "
            + "in flight \(t.inFlight), skipped offline \(t.skippedOffline), buffered \(t.buffered), "
            + "dropped \(t.droppedBuffer), reconnects \(t.reconnects)"
    }

    private func formatRate(_ rate: Double) -> String {
        let tenths = (rate * 10).rounded()
        return "\(Int(tenths) / 10).\(abs(Int(tenths) % 10))"
    }
}
