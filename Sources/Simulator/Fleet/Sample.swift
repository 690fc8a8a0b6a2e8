import Glibc
import Reactor
import Signals

/// `devsim sample`: a few ticks, or a stretch of virtual time, of one device each from every
/// device group, on the dry run's virtual clock, so a user sees the data before pointing it at
/// a broker.
public struct Sample: Sendable {
    /// One device's ticks.
    package struct Device: Sendable {
        package var plan: DevicePlan
        package var ticks: [Tick]
    }

    /// A tick, or the state said at the first CONNACK (`DevicePlan.saysStateAtConnect`), at 0.
    package struct Tick: Sendable, Equatable {
        /// Seconds after the device's first CONNACK (its start delay included).
        package var seconds: Double
        package var payload: String
    }

    /// Ticks shown of a device when neither a count nor a span is given, and of a `publish: max`
    /// device, which has no time to cover, under a span.
    package static let defaultCount = 3

    /// The first device of each group, in the plan's order.
    package static func firstDevicePlans(of plan: FleetPlan) -> [DevicePlan] {
        plan.connections.flatMap { $0.devices.filter { $0.index == 1 } }
    }

    /// The first device of each group, in the plan's order, with its first `count` ticks and
    /// the state before them where it says one: the same payloads a run with `seed` publishes
    /// for that device.
    package static func firstDevices(
        of plan: FleetPlan, seed: UInt64, count: Int,
        wallStart: Double = WallTime.now().secondsSinceEpoch
    ) -> [Device] {
        firstDevicePlans(of: plan).map { Device(plan: $0, ticks: ticks(of: $0, seed: seed, count: count, wallStart: wallStart)) }
    }

    /// The first `count` ticks of `device`, after its state where it says one.
    package static func ticks(
        of device: DevicePlan, seed: UInt64, count: Int,
        wallStart: Double = WallTime.now().secondsSinceEpoch
    ) -> [Tick] {
        var ticks: [Tick] = []
        forEachTick(of: device, seed: seed, count: max(0, count), wallStart: wallStart) { ticks.append($0) }
        return ticks
    }

    /// Hands `device`'s ticks to `body` one by one (a day of a 10 Hz device is not held at
    /// once): the first `count`, and with `span` those due strictly before it ends, whichever
    /// stops first. A device whose stages stop its ticks for good stops there. A device that
    /// says its state at its first CONNACK says it first, beside the count, as a run does
    /// beside `--messages`.
    package static func forEachTick(
        of device: DevicePlan, seed: UInt64, count: Int?, span: Duration? = nil,
        wallStart: Double = WallTime.now().secondsSinceEpoch, _ body: (Tick) -> Void
    ) {
        // `publish: max` has no schedule to cover a span with: it shows a count.
        let end = device.perSecond.isFinite ? span.map { MonotonicClock.nanoseconds($0) } : nil
        let limit = count ?? (end == nil ? defaultCount : .max)
        let virtual = VirtualDevice(plan: device, seed: seed)
        var payload = PayloadBuffer()
        if end != 0, virtual.sayState(into: &payload, wallStart: wallStart) {
            body(Tick(seconds: 0, payload: text(of: virtual, payload)))
        }
        var shown = 0
        while shown < limit, virtual.deadline < min(end ?? .max, Schedule.never) {
            let seconds = virtual.tick(into: &payload, wallStart: wallStart)
            body(Tick(seconds: seconds, payload: text(of: virtual, payload)))
            shown += 1
        }
    }

    /// The payload just made, in a line: the per-field style's messages each `field=value`.
    private static func text(of device: VirtualDevice, _ payload: borrowing PayloadBuffer) -> String {
        if device.keptBack { return "(unchanged: not sent)" }
        if let replay = device.plan.replay {
            // Several topics: each message says which.
            let message = device.messages(in: payload).first
            return replay.topics.count > 1 ? "\(message?.topic ?? "")  \(message?.text ?? "")" : message?.text ?? ""
        }
        if device.plan.sparkplug != nil || device.signals.isRaw { return device.messages(in: payload).first?.text ?? "" }
        if device.signals.keepsSize { return DeviceSignals.sizedText(payload.bytes) }
        guard device.signals.isPerField else { return payload.text }
        return device.messages(in: payload).map { "\($0.topic.split(separator: "/").last ?? "")=\($0.text)" }.joined(separator: " ")
    }
}
