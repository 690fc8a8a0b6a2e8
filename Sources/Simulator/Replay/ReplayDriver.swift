import Reactor
import Signals

/// A replaying device's clock (`DevicePlan.replay`): its timer, and where it is in its
/// recording. Each message goes the way a tick does, through its connection's telemetry
/// (`Telemetry.submit`), so every figure, the offline policy and the `--messages` budget treat
/// it as one: counted as scheduled, then wherever it ends. Confined to its device's loop.
final class ReplayDriver: TimerTarget {
    let plan: ReplayPlan
    /// Its device holds it; it is its device's for as long.
    private unowned(unsafe) let device: Device
    private var cursor: ReplayCursor?
    private let timer: Timer

    init(plan: ReplayPlan, device: Device, loop: EventLoop) {
        self.plan = plan
        self.device = device
        timer = Timer(on: loop)
        timer.target = self
    }

    var hasStarted: Bool { cursor != nil }

    /// The recording's time 0 falls `delay` seconds after `now` (the device's first CONNACK):
    /// each message is due as long after that as it came after the recording's start.
    func start(now: UInt64, delay: Double) {
        guard cursor == nil else { return }
        let cursor = plan.cursor(start: now &+ MonotonicClock.nanoseconds(delay))
        self.cursor = cursor
        if !cursor.isFinished { timer.schedule(at: cursor.deadline) }
    }

    /// Sends nothing more.
    func stop() {
        timer.cancel()
    }

    func timerFired(_ timer: Timer, now: UInt64) {
        guard var cursor, !cursor.isFinished else { return }
        let due = cursor.deadline
        let control = device.control
        guard control.isDue(due), control.takeTick() else { return }
        let index = cursor.index
        let message = plan.messages[index]
        // The time it is sent, read only where a payload shows it.
        plan.write(index, wallClock: message.stamps.isEmpty ? 0 : WallTime.now().secondsSinceEpoch, into: &device.context.payload)
        device.counters.add(.scheduled)
        device.context.offerSample(group: device.group) { bytes in String(validating: bytes, as: UTF8.self) ?? DeviceSignals.rawText(bytes)
        }
        device.context.payload.withBytes { _ = device.telemetry.submit(from: device, payload: $0, due: due, now: now, field: message.slot) }
        cursor.advance()
        self.cursor = cursor
        if !cursor.isFinished { timer.schedule(at: cursor.deadline) }
    }
}
