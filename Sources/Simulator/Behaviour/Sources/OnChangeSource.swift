import Scenario
import Signals

/// `onChange`: a tick goes out when a watched field's value differs from the last sent, or when
/// its heartbeat has passed since; otherwise its messages are kept back (`unchanged`). What was
/// watched counts as sent once the connection took it (`sent(at:)`), a state said beside the
/// schedule too.
final class OnChangeSource: MessageSource {
    private let inner: any MessageSource
    private let signals: DeviceSignals
    /// Seconds after which a tick goes out however unchanged, and the device time of the last
    /// sent (`nil` before the first, and after the connection came up again).
    private let heartbeat: Double
    private var sentAt: Double?

    init(_ inner: any MessageSource, signals: DeviceSignals, onChange: OnChange) {
        self.inner = inner
        self.signals = signals
        heartbeat = onChange.heartbeat
        signals.watch(onChange.fields)
    }

    var topics: [String] { inner.topics }
    var retains: [Bool] { inner.retains }
    var keepsState: Bool { inner.keepsState }
    var countsItsMessages: Bool { inner.countsItsMessages }
    var scripted: ScriptedSource? { inner.scripted }

    func writeTick(_ time: TickTime, into out: inout Outgoing) {
        inner.writeTick(time, into: &out)
        if let sentAt, !signals.hasChanged, time.elapsed - sentAt < heartbeat { out.keepBack() }
    }

    func writeState(_ time: TickTime, into out: inout Outgoing) {
        inner.writeState(time, into: &out)
    }

    func take(_ assignments: [(field: String, value: CommandValue)], at elapsed: Double) throws(CommandRejection) {
        try inner.take(assignments, at: elapsed)
    }

    func sent(at elapsed: Double) {
        signals.markSent()
        sentAt = elapsed
    }

    func connectionCameUp() {
        sentAt = nil
    }

    func tally(into counters: Counters) { inner.tally(into: counters) }
    func describe(_ bytes: [UInt8]) -> String { inner.describe(bytes) }
    func stateAsObject(_ out: borrowing Outgoing) -> [UInt8]? { inner.stateAsObject(out) }
}
