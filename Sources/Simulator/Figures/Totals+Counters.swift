import Report
import Signals

extension Totals {
    /// The loops' counters added up, each read once.
    public init(_ counters: [Counters]) {
        self.init()
        for c in counters {
            figures += c.values
            connectionsUp += c.connectionsUpNow
            connectionsPaused += c.connectionsPausedNow
            faults += c.faults
            commands = commands + c.commands
            refusals = refusals + c.refusedByReason
        }
    }
}
