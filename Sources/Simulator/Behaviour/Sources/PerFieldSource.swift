import Signals

/// The per-field style (`PayloadStyle.perField`): a message a field, its bare value on
/// `{topic}/{field}`; a field that dropped out sends none.
final class PerFieldSource: MessageSource {
    let signals: DeviceSignals
    let topics: [String]
    let retains: [Bool]
    var keepsState: Bool { false }
    var countsItsMessages: Bool { false }

    init(signals: DeviceSignals, topic: String, retain: Bool) {
        self.signals = signals
        topics = signals.fieldNames.map { topic + "/" + $0 }
        retains = Array(repeating: retain, count: topics.count)
    }

    func writeTick(_ time: TickTime, into out: inout Outgoing) {
        signals.encode(elapsed: time.elapsed, wallClock: time.wallClock, into: &out.payload)
        // The pieces' ranges are the buffer's.
        for (field, bytes) in signals.pieces { out.add(slot: field, bytes: bytes) }
    }

    func writeState(_ time: TickTime, into out: inout Outgoing) {
        writeTick(time, into: &out)
    }

    func take(_ assignments: [(field: String, value: CommandValue)], at elapsed: Double) throws(CommandRejection) {
        try signals.take(assignments)
    }

    func tally(into counters: Counters) {
        signals.tally(into: counters)
    }

    /// The fields' values as one object: a request's reply.
    func stateAsObject(_ out: borrowing Outgoing) -> [UInt8]? {
        signals.piecesAsObject(out.payload.bytes)
    }
}
