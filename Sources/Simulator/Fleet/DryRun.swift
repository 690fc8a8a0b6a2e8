import Glibc
import Reactor
import Report
import Signals

/// `run --dry-run`: what the fleet would publish, without a broker, on a virtual clock. Every
/// device's connection gets its CONNACK at time zero, where a device that says its state then
/// says it, as in a run; each device ticks first at its start delay (0 without a `jitter`), and
/// the whole run is printed at once, timestamps as if the time had passed: one JSON object a line
/// with `at` (the message's virtual time, `VirtualTime`), `topic`, `payload` (the payload as a
/// JSON string), `qos` and `retain`, and `"state": true` on a state said at the CONNACK.
public struct DryRun {
    public var plan: FleetPlan
    public var seed: UInt64
    /// Virtual time to cover.
    public var duration: Duration?
    /// Ticks' messages to print over the whole fleet, as a run's `--messages` counts them: the
    /// states beside.
    public var messages: Int?

    public init(plan: FleetPlan, seed: UInt64, duration: Duration?, messages: Int?) {
        self.plan = plan
        self.seed = seed
        self.duration = duration
        self.messages = messages
    }

    /// Runs the virtual clock, handing each line (newline included) to `emit`. Returns the count.
    @discardableResult
    public func run(wallStart: Double = WallTime.now().secondsSinceEpoch, emit: (String) -> Void) -> Int {
        var heap = TimerHeap()
        let end = duration.map { MonotonicClock.nanoseconds($0) }
        let devices = plan.connections.flatMap(\.devices).map { VirtualDevice(plan: $0, seed: seed) }
        // A profile that stops for good puts the next tick at "never": it is not scheduled.
        for device in devices where device.schedule.deadline < Schedule.never { heap.schedule(device.timer, at: device.schedule.deadline) }
        // The heap holds the timers unretained: the devices must live until it is emptied, which
        // an optimized build does not wait for once `devices` is no longer named.
        defer { withExtendedLifetime(devices) { heap.removeAll() } }
        var printed = 0
        var payload = PayloadBuffer()
        for device in devices where end != 0 && device.sayState(into: &payload, wallStart: wallStart) {
            for (topic, text) in device.messages(in: payload) {
                emit(DryRun.line(device.plan, at: 0, topic: topic, payload: text, state: true))
            }
        }
        // Ticks due strictly before the end: a run of D seconds at R per second is D × R ticks.
        let last = end.map { $0 > 0 ? $0 - 1 : 0 } ?? .max
        while printed < messages ?? .max, end != 0, let timer = heap.popDue(now: last) {
            let device = timer.takeUnretainedValue().target as! VirtualDevice
            let at = device.tick(into: &payload, wallStart: wallStart)
            for (topic, text) in device.messages(in: payload) where printed < messages ?? .max {
                emit(DryRun.line(device.plan, at: at, topic: topic, payload: text))
                printed += 1
            }
            if device.schedule.deadline < Schedule.never { heap.schedule(device.timer, at: device.schedule.deadline) }
        }
        return printed
    }

    /// First the time, where a person's eye starts, and a `jq` filter on it reads as plain; a
    /// state said at the CONNACK, no tick (`--messages` counts none), says so last.
    static func line(_ device: DevicePlan, at seconds: Double, topic: String? = nil, payload: String, state: Bool = false) -> String {
        "{\"at\":\"\(VirtualTime.text(seconds))\",\"topic\":\(JSONText.quoted(topic ?? device.topic)),\"payload\":\(JSONText.quoted(payload)),"
            + "\"qos\":\(device.qos),\"retain\":\(device.retain)" + (state ? ",\"state\":true}\n" : "}\n")
    }
}

/// A device on the dry run's virtual clock: the dry run pops its timer and ticks it itself.
private final class VirtualDevice: TimerTarget {
    let plan: DevicePlan
    let signals: DeviceSignals
    var schedule: Schedule
    private(set) var timer: Timer!

    init(plan: DevicePlan, seed: UInt64) {
        self.plan = plan
        signals = DeviceSignals(
            payload: plan.payload, deviceID: plan.id, index: plan.index,
            seed: seed, sampleInterval: plan.sampleInterval)
        schedule = Schedule(start: MonotonicClock.nanoseconds(plan.startDelay), perSecond: plan.perSecond, profile: plan.profile)
        timer = Timer(target: self)
        if let onChange = plan.onChange { signals.watch(onChange.fields) }
    }

    /// The device time of the last tick an `onChange` device sent, and whether the last tick
    /// was one it kept to itself (`unchanged`).
    private var sentAt: Double?
    private(set) var keptBack = false

    /// Makes the state the device says at its first CONNACK, time 0, where it says one
    /// (`DevicePlan.saysStateAtConnect`), as a device of a run makes it: the ticks after it
    /// carry on from it, and an `onChange` device's first tick is compared with it. Returns
    /// whether there was one.
    func sayState(into payload: inout PayloadBuffer, wallStart: Double) -> Bool {
        guard plan.saysStateAtConnect(tickIsDue: schedule.deadline == 0) else { return false }
        payload.removeAll()
        signals.encode(elapsed: 0, wallClock: wallStart, into: &payload)
        keptBack = false
        if plan.onChange != nil {
            signals.markSent()
            sentAt = 0
        }
        return true
    }

    /// Makes the next tick's payload, as a device of a run with the same seed makes it, and
    /// moves on; returns the tick's time after the device's first CONNACK, in seconds.
    @discardableResult
    func tick(into payload: inout PayloadBuffer, wallStart: Double) -> Double {
        payload.removeAll()
        let seconds = plan.startDelay + schedule.elapsed
        signals.encode(elapsed: schedule.elapsed, wallClock: wallStart + seconds, into: &payload)
        keptBack = false
        if let onChange = plan.onChange {
            if let sentAt, !signals.hasChanged, schedule.elapsed - sentAt < onChange.heartbeat {
                keptBack = true
            } else {
                signals.markSent()
                sentAt = schedule.elapsed
            }
        }
        schedule.advance()
        return seconds
    }

    /// The tick's messages, with their topics: one, or in the per-field style one per field.
    func messages(in payload: borrowing PayloadBuffer) -> [(topic: String, text: String)] {
        if keptBack { return [] }
        guard signals.isPerField else { return [(plan.topic, payload.text)] }
        let bytes = payload.bytes
        return signals.pieces.map { field, range in
            (plan.fieldTopics[field], String(decoding: bytes[range], as: UTF8.self))
        }
    }

    func timerFired(_ timer: Timer, now: UInt64) {}
}

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
        while shown < limit, virtual.schedule.deadline < min(end ?? .max, Schedule.never) {
            let seconds = virtual.tick(into: &payload, wallStart: wallStart)
            body(Tick(seconds: seconds, payload: text(of: virtual, payload)))
            shown += 1
        }
    }

    /// The payload just made, in a line: the per-field style's messages each `field=value`.
    private static func text(of device: VirtualDevice, _ payload: borrowing PayloadBuffer) -> String {
        if device.keptBack { return "(unchanged: not sent)" }
        guard device.signals.isPerField else { return payload.text }
        return device.messages(in: payload).map { "\($0.topic.split(separator: "/").last ?? "")=\($0.text)" }.joined(separator: " ")
    }
}
