import Glibc
import Reactor
import Report
import Signals

/// `run --dry-run`: what the fleet would publish, without a broker, on a virtual clock. Every
/// device's connection gets its CONNACK at time zero, where a device that says its state then
/// says it, as in a run; each device ticks first at its start delay (0 without a `jitter`), and
/// the whole run is printed at once, timestamps as if the time had passed: one JSON object a line
/// with `at` (the message's virtual time, `VirtualTime`), `topic`, `payload` (the payload as a
/// JSON string), `qos` and `retain`, a tick's MQTT 5 `properties` where its group has them
/// (`PublishProperties.json`), and `"state": true` on a state said at the CONNACK.
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
        for device in devices where device.deadline < Schedule.never { heap.schedule(device.timer, at: device.deadline) }
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
        var silent = 0
        let silentLimit = max(Self.silentTicks, 10 * devices.count)
        while printed < messages ?? .max, end != 0, silent < silentLimit, let timer = heap.popDue(now: last) {
            let device = timer.takeUnretainedValue().target as! VirtualDevice
            let at = device.tick(into: &payload, wallStart: wallStart)
            silent += 1
            for (topic, text) in device.messages(in: payload) where printed < messages ?? .max {
                emit(DryRun.line(device.plan, at: at, topic: topic, payload: text, retain: device.retains))
                printed += 1
                silent = 0
            }
            if device.deadline < Schedule.never { heap.schedule(device.timer, at: device.deadline) }
        }
        return printed
    }

    /// Ticks in a row that send nothing (by exception, on a change) after which a dry run ends,
    /// or ten rounds of the fleet if more: values that never change would otherwise keep a run
    /// bounded only by `--messages` going for ever (found by review).
    static let silentTicks = 100_000

    /// First the time, where a person's eye starts, and a `jq` filter on it reads as plain; a
    /// state said at the CONNACK, no tick (`--messages` counts none), says so last.
    static func line(
        _ device: DevicePlan, at seconds: Double, topic: String? = nil, payload: String, state: Bool = false, retain: Bool? = nil
    ) -> String {
        "{\"at\":\"\(VirtualTime.text(seconds))\",\"topic\":\(JSONText.quoted(topic ?? device.topic)),\"payload\":\(JSONText.quoted(payload)),"
            + "\"qos\":\(device.qos),\"retain\":\(retain ?? device.retain)"
            + (state ? ",\"state\":true}\n" : (device.properties.map { ",\"properties\":" + $0.json } ?? "") + "}\n")
    }
}
