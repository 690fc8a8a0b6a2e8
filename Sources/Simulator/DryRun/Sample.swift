import Glibc
import Logging
import MQTT
import Reactor
import Scenario
import Signals

/// `devsim sample`: a few ticks, or a stretch of virtual time, of one device each from every
/// device group, on the dry run's virtual clock, so a user sees the data before pointing it at
/// a broker: its connection played alone (`DryRunConnection`), so what its roles say at the
/// CONNACK comes first, then its ticks.
public struct Sample: Sendable {
    /// One device's ticks.
    package struct Device: Sendable {
        package var plan: DevicePlan
        package var ticks: [Tick]
    }

    /// A tick, or what is said beside the ticks (the state at the first CONNACK, a role's
    /// messages, the will), at its time.
    package struct Tick: Sendable, Equatable {
        /// Seconds after the device's first CONNACK (its start delay included).
        package var seconds: Double
        package var payload: String
        /// Whether it is said beside the device's own messages: a role's words (availability, a
        /// discovery config, a Sparkplug NBIRTH), or the will.
        package var isBeside = false
    }

    /// Ticks shown of a device when neither a count nor a span is given, and of a `publish: max`
    /// device, which has no time to cover, under a span.
    package static let defaultCount = 3

    /// The first device of each group, in the plan's order.
    package static func firstDevicePlans(of plan: FleetPlan) -> [DevicePlan] {
        plan.connections.flatMap { $0.devices.filter { $0.index == 1 } }
    }

    /// The first device of each group, in the plan's order, with its first `count` ticks and
    /// what is said before them: the same payloads a run with `seed` publishes for that device.
    package static func firstDevices(
        of plan: FleetPlan, seed: UInt64, count: Int,
        wallStart: Double = WallTime.now().secondsSinceEpoch
    ) -> [Device] {
        firstDevicePlans(of: plan).map { Device(plan: $0, ticks: ticks(of: $0, in: plan, seed: seed, count: count, wallStart: wallStart)) }
    }

    /// The first `count` ticks of `device`, after what is said at its CONNACK.
    package static func ticks(
        of device: DevicePlan, in plan: FleetPlan, seed: UInt64, count: Int,
        wallStart: Double = WallTime.now().secondsSinceEpoch
    ) -> [Tick] {
        var ticks: [Tick] = []
        forEachTick(of: device, in: plan, seed: seed, count: max(0, count), wallStart: wallStart) { ticks.append($0) }
        return ticks
    }

    /// Hands `device`'s ticks to `body` one by one (a day of a 10 Hz device is not held at
    /// once): the first `count`, and with `span` those due strictly before it ends, whichever
    /// stops first. A device whose stages stop its ticks for good stops there. What its
    /// connection says at the CONNACK comes first, beside the count, as a run says it beside
    /// `--messages`. `plan`: the fleet it is of, whose connection it plays with itself alone in
    /// it.
    package static func forEachTick(
        of device: DevicePlan, in plan: FleetPlan, seed: UInt64, count: Int?, span: Duration? = nil,
        wallStart: Double = WallTime.now().secondsSinceEpoch, logger: Logger? = nil, _ body: (Tick) -> Void
    ) {
        forEachTick(
            of: device, in: plan, seed: seed, count: count, span: span, wallStart: wallStart, scripts: .offline(logger: logger), body)
    }

    /// `forEachTick` with the interpreter of its device's script.
    static func forEachTick(
        of device: DevicePlan, in plan: FleetPlan, seed: UInt64, count: Int?, span: Duration? = nil, wallStart: Double,
        scripts: @autoclosure () -> ScriptHost, _ body: (Tick) -> Void
    ) {
        // `publish: max` has no schedule to cover a span with: it shows a count.
        let end = device.perSecond.isFinite ? span.map { MonotonicClock.nanoseconds($0) } : nil
        guard end != 0 else { return }
        let limit = count ?? (end == nil ? defaultCount : .max)
        var said: [DryRunPrinter.Said] = []
        let printer = DryRunPrinter(messages: nil) { said.append($0) }
        let clock = DryRunClock()
        let connection = DryRunConnection(
            plan: alone(device, in: plan), seed: seed, wallStart: wallStart, clock: clock, printer: printer, scripts: scripts())
        connection.connect()
        for message in said { body(Tick(message, device)) }
        guard let only = connection.devices.first else { return }
        if let deadline = only.deadline { clock.heap.schedule(only.timer, at: deadline) }
        let last = end.map { $0 - 1 } ?? .max
        var shown = 0
        while shown < limit, only.timer.isScheduled, let timer = clock.popDue(by: last) {
            said.removeAll()
            guard timer.target is DryRunDevice else {
                timer.target.timerFired(timer, now: clock.now)
                for message in said { body(Tick(message, device)) }
                continue
            }
            let ticked = only.tick()
            body(Tick(seconds: ticked.seconds, payload: ticked.keptBack ? "(unchanged: not sent)" : text(of: said, device)))
            shown += 1
            if let deadline = only.deadline { clock.heap.schedule(only.timer, at: deadline) }
        }
        withExtendedLifetime(connection) { clock.heap.removeAll() }
    }

    /// The connection of `device` in `plan`, with `device` alone in it: what it says at its
    /// CONNACK is the device's part of what its connection says (its node's NBIRTH and its own
    /// DBIRTH, its own availability and discovery).
    private static func alone(_ device: DevicePlan, in plan: FleetPlan) -> ConnectionPlan {
        var connection = plan.connections.first { $0.devices.contains { $0.id == device.id } }!
        connection.devices = [device]
        return connection
    }

    /// A tick's messages in a line: one payload; in the per-field style each `field=value`; a
    /// recording's on several topics, with its topic.
    fileprivate static func text(of said: [DryRunPrinter.Said], _ device: DevicePlan) -> String {
        if !device.payload.fields.isEmpty, device.payload.style == .perField {
            return said.map { "\($0.topic.split(separator: "/").last ?? "")=\($0.payload)" }.joined(separator: " ")
        }
        if let replay = device.replay, replay.topics.count > 1, let message = said.first { return "\(message.topic)  \(message.payload)" }
        return said.first?.payload ?? ""
    }

}

extension Sample.Tick {
    /// What is said beside the ticks, in a line: a state as a tick reads; a role's words and the
    /// will with what they are and their topic: `[availability] home/lamp-1/status  online`.
    fileprivate init(_ said: DryRunPrinter.Said, _ device: DevicePlan) {
        seconds = said.seconds
        switch said.kind {
        case .tick, .state: payload = Sample.text(of: [said], device)
        case .beside(let what):
            payload = "[\(what)] \(said.topic)  \(said.payload)"
            isBeside = true
        case .will:
            payload = "[will] \(said.topic)  \(said.payload)"
            isBeside = true
        }
    }
}
