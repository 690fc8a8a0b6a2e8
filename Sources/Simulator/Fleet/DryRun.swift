import Glibc
import Mosquitto
import Signals

/// `run --dry-run`: what the fleet would publish, without a broker, on a virtual clock. Every
/// device starts at time zero as if its CONNACK had just arrived, and the whole run is printed at
/// once, timestamps as if the time had passed: one JSON object a line with `topic`, `payload`
/// (the payload as a JSON string), `qos` and `retain`.
public struct DryRun {
    public var plan: FleetPlan
    public var seed: UInt64
    /// Virtual seconds to cover.
    public var duration: Double?
    /// Messages to print over the whole fleet.
    public var messages: Int?

    public init(plan: FleetPlan, seed: UInt64, duration: Double?, messages: Int?) {
        self.plan = plan
        self.seed = seed
        self.duration = duration
        self.messages = messages
    }

    /// Runs the virtual clock, handing each line (newline included) to `emit`. Returns the count.
    @discardableResult
    public func run(wallStart: Double = WallTime.now().secondsSinceEpoch, emit: (String) -> Void) -> Int {
        var heap = DeadlineHeap()
        let end = duration.map { UInt64($0 * 1e9) }
        for connection in plan.connections {
            for device in connection.devices {
                heap.insert(deadline: 0, target: VirtualDevice(plan: device, seed: seed), tag: 0)
            }
        }
        var printed = 0
        var payload: [UInt8] = []
        // Ticks due strictly before the end: a run of D seconds at R per second is D × R ticks.
        let last = end.map { $0 > 0 ? $0 - 1 : 0 } ?? .max
        while printed < messages ?? .max, end != 0, let entry = heap.popDue(now: last) {
            guard let device = entry.target as? VirtualDevice else { continue }
            payload.removeAll(keepingCapacity: true)
            let elapsed = device.schedule.elapsed
            device.signals.encode(elapsed: elapsed, wallClock: wallStart + elapsed, into: &payload)
            emit(DryRun.line(device.plan, payload: payload))
            printed += 1
            device.schedule.advance()
            heap.insert(deadline: device.schedule.deadline, target: device, tag: 0)
        }
        return printed
    }

    static func line(_ device: DevicePlan, payload: [UInt8]) -> String {
        "{\"topic\":\(JSONText.quoted(device.topic)),\"payload\":\(JSONText.quoted(String(decoding: payload, as: UTF8.self))),"
            + "\"qos\":\(device.qos),\"retain\":\(device.retain)}\n"
    }
}

/// A device on the dry run's virtual clock.
private final class VirtualDevice: TimerTarget {
    let plan: DevicePlan
    let signals: DeviceSignals
    var schedule: Schedule

    init(plan: DevicePlan, seed: UInt64) {
        self.plan = plan
        signals = DeviceSignals(payload: plan.payload, deviceID: plan.id, index: plan.index,
                                seed: seed, sampleInterval: plan.sampleInterval)
        schedule = Schedule(start: 0, perSecond: plan.perSecond)
    }

    func timerFired(tag: Int, now: UInt64) {}
}
