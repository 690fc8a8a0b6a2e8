import Signals

/// What a device sends: each tick's messages, written into the loop's buffer (`Outgoing`), and
/// its state beside its schedule (a command's answer, a state said at a CONNACK). Chosen once,
/// when the device is planned (`DeviceBehaviour`): the run's `Device`, the dry run and `sample`
/// call the same one, so what they show is what a run publishes. Confined to its device's loop.
protocol MessageSource: AnyObject {
    /// Each topic it may send to, by slot (`Outgoing.Message.slot`), and whether a message
    /// there is retained; its own topic, slot -1, is the device's.
    var topics: [String] { get }
    var retains: [Bool] { get }
    /// Whether its messages on the device's own topic are telemetry a dashboard can be handed
    /// again (Home Assistant's restart): whole payloads, not a Sparkplug DDATA or a field's bare
    /// value.
    var keepsState: Bool { get }
    /// Whether a tick its connection cannot take is counted without being made: one message a
    /// tick, kept back or not. Not a message a field, nor a tick that sends only what changed
    /// since the host last heard (Sparkplug by exception), whose count only making them tells.
    var countsItsMessages: Bool { get }

    /// The messages of the tick `time`, or the messages it keeps back (`Outgoing.keptBack`).
    func writeTick(_ time: TickTime, into out: inout Outgoing)
    /// The device's state at `time`, beside its schedule: what a tick would send now, never kept
    /// back. A recording has none.
    func writeState(_ time: TickTime, into out: inout Outgoing)
    /// A command's values for its fields, all or none, `elapsed` seconds into the device's life.
    func take(_ assignments: [(field: String, value: CommandValue)], at elapsed: Double) throws(CommandRejection)
    /// Its tick's messages went out (published or queued) at `elapsed`: what `onChange`
    /// compares with next.
    func sent(at elapsed: Double)
    /// The connection came up again: the next tick goes out whatever it says, since what was
    /// sent before may not have arrived.
    func connectionCameUp()
    /// What the last tick tallied beside its messages (faults that fired, payloads over their
    /// size), added to `counters`.
    func tally(into counters: Counters)
    /// One of its payloads as a person reads it: the live page's sample, the dry run's line.
    func describe(_ bytes: [UInt8]) -> String
    /// A state of several messages (the per-field style) as the one JSON object a request's
    /// reply is; `nil` for a source whose state is one message.
    func stateAsObject(_ out: borrowing Outgoing) -> [UInt8]?
    /// The device's script, where it has one (`ScriptRole` calls its other hooks).
    var scripted: ScriptedSource? { get }
}

extension MessageSource {
    var keepsState: Bool { true }
    var countsItsMessages: Bool { true }
    func sent(at elapsed: Double) {}
    func connectionCameUp() {}
    func tally(into counters: Counters) {}
    func describe(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
    func stateAsObject(_ out: borrowing Outgoing) -> [UInt8]? { nil }
    var scripted: ScriptedSource? { nil }
}

/// A tick's place in time: seconds into the device's life (from its first tick), the wall clock
/// then, and its number in the recording it replays.
struct TickTime {
    var elapsed: Double
    var wallClock: Double
    var index = 0
}
