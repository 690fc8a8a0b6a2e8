import Glibc
import Reactor
import Signals

/// A device on the dry run's virtual clock: the dry run pops its timer and ticks it itself.
final class VirtualDevice: TimerTarget {
    let plan: DevicePlan
    let signals: DeviceSignals
    var schedule: Schedule
    private(set) var timer: Timer!
    /// A replaying device's place in its recording (`DevicePlan.replay`), and the slot of the
    /// message it made last.
    private(set) var cursor: ReplayCursor?
    private var slot = 0

    init(plan: DevicePlan, seed: UInt64) {
        self.plan = plan
        signals = DeviceSignals(
            payload: plan.payload, deviceID: plan.id, index: plan.index,
            seed: seed, sampleInterval: plan.sampleInterval)
        schedule = Schedule(start: MonotonicClock.nanoseconds(plan.startDelay), perSecond: plan.perSecond, profile: plan.profile)
        timer = Timer(target: self)
        cursor = plan.replay?.cursor(start: MonotonicClock.nanoseconds(plan.startDelay))
        if let onChange = plan.onChange { signals.watch(onChange.fields) }
        // Alone in its node: a run's aliases depend on its place there, its metrics' names do not.
        if let sparkplug = plan.sparkplug { signals.useSparkplug(firstAlias: 1, reporting: sparkplug.reporting) }
    }

    /// A Sparkplug device's last payload was its DBIRTH (`sayState`), not a DDATA.
    private var saidBirth = false

    /// The device time of the last tick an `onChange` device sent, and whether the last tick
    /// was one it kept to itself (`unchanged`).
    private var sentAt: Double?
    private(set) var keptBack = false

    /// Makes the state the device says at its first CONNACK, time 0, where it says one
    /// (`DevicePlan.saysStateAtConnect`), as a device of a run makes it: the ticks after it
    /// carry on from it, and an `onChange` device's first tick is compared with it. Returns
    /// whether there was one.
    func sayState(into payload: inout PayloadBuffer, wallStart: Double) -> Bool {
        if plan.sparkplug != nil {
            // A Sparkplug device's state is its DBIRTH.
            payload.removeAll()
            signals.encodeSparkplugBirth(elapsed: 0, wallClock: wallStart, into: &payload)
            saidBirth = true
            return true
        }
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
    /// When its next message is due: its next tick's, or a replay's next message's;
    /// `Schedule.never` once a replay that does not loop is over.
    var deadline: UInt64 {
        guard let cursor else { return schedule.deadline }
        return cursor.isFinished ? Schedule.never : cursor.deadline
    }

    @discardableResult
    func tick(into payload: inout PayloadBuffer, wallStart: Double) -> Double {
        if let replay = plan.replay, var cursor {
            let seconds = Double(cursor.deadline) / 1e9
            replay.write(cursor.index, wallClock: wallStart + seconds, into: &payload)
            slot = replay.messages[cursor.index].slot
            cursor.advance()
            self.cursor = cursor
            return seconds
        }
        payload.removeAll()
        let seconds = plan.startDelay + schedule.elapsed
        saidBirth = false
        keptBack = false
        if plan.sparkplug != nil {
            keptBack = signals.encodeSparkplugData(elapsed: schedule.elapsed, wallClock: wallStart + seconds, into: &payload) == 0
            schedule.advance()
            return seconds
        }
        signals.encode(elapsed: schedule.elapsed, wallClock: wallStart + seconds, into: &payload)
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

    /// Whether the message it made last is retained: the group's `retain`, or a replayed
    /// message's as recorded.
    var retains: Bool { plan.replay?.retains[slot] ?? plan.retain }

    /// The tick's messages, with their topics: one, or in the per-field style one per field.
    func messages(in payload: borrowing PayloadBuffer) -> [(topic: String, text: String)] {
        if keptBack { return [] }
        if let replay = plan.replay {
            let bytes = payload.bytes
            return [(replay.topics[slot], String(validating: bytes, as: UTF8.self) ?? DeviceSignals.rawText(bytes))]
        }
        if let sparkplug = plan.sparkplug {
            let topic = saidBirth ? sparkplug.topic.topic(.deviceBirth, device: plan.id) : plan.topic
            return [(topic, signals.sparkplugText(payload.bytes))]
        }
        if signals.isRaw { return [(plan.topic, DeviceSignals.rawText(payload.bytes))] }
        guard signals.isPerField else { return [(plan.topic, payload.text)] }
        let bytes = payload.bytes
        return signals.pieces.map { field, range in
            (plan.fieldTopics[field], String(decoding: bytes[range], as: UTF8.self))
        }
    }

    func timerFired(_ timer: Timer, now: UInt64) {}
}
