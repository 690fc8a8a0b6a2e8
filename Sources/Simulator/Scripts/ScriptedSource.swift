import Scripting
import Signals

/// A device whose logic is its group's script (`script:`): each tick its fields are made by
/// their generators, handed to the script's `tick` hook as `device.fields`, and written as the
/// hook left them; or the hook skips the tick (`false`, counted as `unchanged`), or sends a list
/// of messages of its own instead. A command goes to its `command` hook first. A hook that fails
/// is counted (`scriptErrors`) and said once a reason, and the device goes on: the tick as its
/// generators made it, the command refused. A hook that spends its instruction budget is not
/// called again for the device.
final class ScriptedSource: MessageSource {
    private let signals: DeviceSignals
    let host: ScriptHost
    let script: Script
    let device: ScriptDevice
    /// Its fields as the script sees them (`device.fields`), in the signals' order.
    private let shape: FieldShape
    private let hasFormulas: Bool
    /// The values its `tick` hook set last, by field (`nil`: the generator's), which a tick whose
    /// hook fails sends over the generators': the device goes on with its last good state.
    private var lastSet: [SignalValue?]
    /// What the hook being read sets, which becomes `lastSet` once its fields could be read.
    private var settingNow: [SignalValue?]
    private let perField: Bool
    /// The device's own topic, which a message of the script's may name.
    private let ownTopic: String
    /// The per-field topics first, then each topic a message of the script's named, by slot.
    private(set) var topics: [String]
    private(set) var retains: [Bool]
    private var slots: [String: Int] = [:]
    /// Failed calls since the last tally.
    private var errors = 0
    /// Hooks that spent their budget: not called again for this device.
    private var suspended: Set<Hook> = []
    /// Whether its `start` hook has run (at its first CONNACK).
    var hasStarted = false

    init(signals: DeviceSignals, host: ScriptHost, script: Script, plan: DevicePlan, seed: UInt64) {
        self.signals = signals
        self.host = host
        self.script = script
        signals.keepReadings()
        shape = host.shape(of: signals.fieldPaths)
        hasFormulas = signals.hasFormulas
        lastSet = Array(repeating: nil, count: shape.dotted.count)
        settingNow = lastSet
        perField = signals.isPerField
        ownTopic = plan.topic
        topics = perField ? signals.fieldNames.map { plan.topic + "/" + $0 } : []
        retains = Array(repeating: plan.retain, count: topics.count)
        device = host.engine.makeDevice(id: plan.id, index: plan.index, random: ScriptHost.random(seed: seed, id: plan.id))
    }

    deinit {
        host.engine.release(device)
    }

    var keepsState: Bool { !perField }
    var scripted: ScriptedSource? { self }
    /// A tick may send several messages, or none.
    var countsItsMessages: Bool { false }

    func writeTick(_ time: TickTime, into out: inout Outgoing) {
        let (instant, values, results) = callTick(at: time)
        guard let results else { return writeFields(at: instant, into: &out) }
        switch results.first ?? .null {
        case .null, .bool(true):
            apply(over: values, at: instant)
            writeFields(at: instant, into: &out)
        case .bool(false):
            out.keptBack += 1
        case .list(let messages):
            send(messages, into: &out)
        case .table(let entries) where entries.isEmpty:
            // An empty list: no message this tick.
            out.keptBack += 1
        case let other:
            failed(
                shape(
                    "tick() returned a \(other.typeName): it returns nothing (the fields go out), false (none does), or a list of "
                        + "{ topic = …, payload = … }"), of: .tick)
            keepLastGood(at: instant)
            writeFields(at: instant, into: &out)
        }
    }

    /// The device's state beside its schedule (a command's answer, a state at a CONNACK): what
    /// its `tick` hook makes of its fields now, never kept back; messages of its own the hook
    /// returns go out after the state, as a call of `tick` is a tick to the script.
    func writeState(_ time: TickTime, into out: inout Outgoing) {
        let (instant, values, results) = callTick(at: time)
        guard let results else { return writeFields(at: instant, into: &out) }
        apply(over: values, at: instant)
        writeFields(at: instant, into: &out)
        if case .list(let messages)? = results.first { send(messages, into: &out) }
    }

    /// The `tick` hook called for the publish at `time`: that publish, the fields it was given,
    /// and what it returned, `nil` when it failed (the publish then keeps the last good values).
    private func callTick(at time: TickTime) -> (PublishInstant, [SignalValue], [ScriptValue]?) {
        let instant = signals.nextInstant(elapsed: time.elapsed, wallClock: time.wallClock)
        let values = signals.values(at: instant)
        let results = call(.tick, at: time.elapsed, fields: values)
        if results == nil { keepLastGood(at: instant) }
        return (instant, values, results)
    }

    /// Each assignment to its `command` hook first, in order: `nil` applies it to its field as
    /// the field's `command` says, `true` says the script took it, `false, "why"` (or a text)
    /// refuses the command. The fields take theirs all or none, once the hook took the rest.
    func take(_ assignments: [(field: String, value: CommandValue)], at elapsed: Double) throws(CommandRejection) {
        guard script.defines(.command) else { return try signals.take(assignments) }
        var forFields: [(field: String, value: CommandValue)] = []
        for (field, value) in assignments {
            guard let results = call(.command, at: elapsed, arguments: [.text(field), Self.scriptValue(value)]) else {
                throw CommandRejection("the script's command() failed on '\(field)'", kind: "the script's command() failed")
            }
            switch results.first ?? .null {
            case .null: forFields.append((field, value))
            case .bool(true): break
            case .bool(false):
                throw CommandRejection(
                    results.dropFirst().first?.text ?? "the script refused '\(field)'", kind: "the script refused a command")
            case .string:
                throw CommandRejection(results[0].text ?? "", kind: "the script refused a command")
            case let other:
                failed(
                    shape(
                        "command() returned a \(other.typeName): it returns nothing (the field takes the value), true (the script "
                            + "took it) or false and why", of: .command), of: .command)
                throw CommandRejection("the script's command() answered '\(field)' wrongly", kind: "the script's command() failed")
            }
        }
        try signals.take(forFields)
    }

    func tally(into counters: Counters) {
        signals.tally(into: counters)
        guard errors > 0 else { return }
        counters.add(.scriptErrors, errors)
        errors = 0
    }

    func describe(_ bytes: [UInt8]) -> String {
        String(validating: bytes, as: UTF8.self) ?? DeviceSignals.rawText(bytes)
    }

    func stateAsObject(_ out: borrowing Outgoing) -> [UInt8]? {
        perField ? signals.piecesAsObject(out.payload.bytes) : nil
    }

    /// Calls `hook` for the device at `elapsed`: its results, or `nil` when it failed (counted
    /// and said) or is suspended.
    func call(_ hook: Hook, at elapsed: Double, fields: [SignalValue]? = nil, arguments: [ScriptValue] = []) -> [ScriptValue]? {
        guard !suspended.contains(hook) else { return nil }
        switch host.engine.call(hook, of: script, device: device, time: elapsed, fields: fields.map { (shape, $0) }, arguments: arguments) {
        case .success(let results): return results
        case .failure(let error):
            failed(error, of: hook)
            return nil
        }
    }

    /// A failed call: counted, said once a reason, and a hook that spent its budget suspended.
    private func failed(_ error: ScriptError, of hook: Hook) {
        errors += 1
        if error.stop == .budget { suspended.insert(hook) }
        host.failed(error, of: hook, device: device.id)
    }

    /// A hook's answer of the wrong shape, said at the line the hook starts on.
    private func shape(_ message: String, of hook: Hook = .tick) -> ScriptError {
        ScriptError(file: script.file, line: script.hooks[hook], message: message)
    }

    /// The fields as the publish at `instant` writes them.
    private func writeFields(at instant: PublishInstant, into out: inout Outgoing) {
        let start = out.payload.count
        signals.write(at: instant, into: &out.payload)
        guard perField else { return out.add(slot: -1, from: start) }
        for (field, bytes) in signals.pieces { out.add(slot: field, bytes: bytes) }
    }

    /// The messages a `tick` hook sent instead of its fields: each `{ topic = …, payload = … }`,
    /// its payload a text or a table (written as JSON), `retain` if it says so.
    private func send(_ messages: [ScriptValue], into out: inout Outgoing) {
        for (number, message) in messages.enumerated() {
            guard case .table(let entries) = message, let topic = entries["topic"]?.text, !topic.isEmpty,
                let payload = entries["payload"], payload != .null
            else {
                failed(
                    shape(
                        "tick() returned a list whose item \(number + 1) is no { topic = \"…\", payload = … }: it sends "
                            + "the items before it only"), of: .tick)
                return
            }
            let start = out.payload.count
            if let text = payload.text {
                out.payload.append(contentsOf: Array(text.utf8))
            } else {
                ScriptJSON.write(payload, into: &out.payload)
            }
            out.add(slot: slot(of: topic, retain: entries["retain"] == .bool(true)), from: start)
        }
    }

    /// The slot of `topic`: the device's own (-1), or one for it from now on.
    private func slot(of topic: String, retain: Bool) -> Int {
        if topic == ownTopic, !retain { return -1 }
        let key = (retain ? "1" : "0") + topic
        if let known = slots[key] { return known }
        topics.append(topic)
        retains.append(retain)
        slots[key] = topics.count - 1
        return topics.count - 1
    }

    /// The fields as the `tick` hook left `device.fields`, over the publish at `instant`: each
    /// field it changed takes its new value, of its kind; one it removed drops out. What cannot
    /// be a field's value is the hook's error, and leaves the field as it was.
    private func apply(over values: [SignalValue], at instant: PublishInstant) {
        var changedAny = false
        for index in settingNow.indices { settingNow[index] = nil }
        let problem = host.engine.readFields(of: device, shape: shape, over: values) { index, value in
            signals.replace(index, with: value, at: instant)
            settingNow[index] = value
            changedAny = true
        }
        if changedAny, hasFormulas { signals.refreshFormulas(at: instant) }
        switch problem {
        case nil: swap(&lastSet, &settingNow)
        case .notATable(let type)?:
            keepLastGood(at: instant)
            failed(shape("device.fields is a \(type) after tick(): a table of the fields is what goes out"), of: .tick)
        case .notAValue(let field, let type)?:
            swap(&lastSet, &settingNow)
            failed(shape("device.fields.\(shape.dotted[field]) is a \(type): a field is a number, text or boolean"), of: .tick)
        }
    }

    /// The publish at `instant` after a failed `tick`: the values the last good one set.
    private func keepLastGood(at instant: PublishInstant) {
        var changedAny = false
        for (index, value) in lastSet.enumerated() {
            guard let value else { continue }
            signals.replace(index, with: value, at: instant)
            changedAny = true
        }
        if changedAny, hasFormulas { signals.refreshFormulas(at: instant) }
    }

    static func scriptValue(_ value: CommandValue) -> ScriptValue {
        switch value {
        case .number(let number): .number(number)
        case .bool(let flag): .bool(flag)
        case .text(let text): .text(text)
        }
    }
}
