import MQTT
import Mosquitto
import Reactor
import Report
import Signals

/// One simulated device: a schedule that starts at its connection's first CONNACK and a set of
/// signals that make each payload. Confined to its connection's event loop.
final class Device: TimerTarget {
    let plan: DevicePlan
    /// The topic, encoded once: every publish passes it to the client.
    let topic: Topic
    /// `{topic}/{field}` for each field, in the per-field style (`PayloadStyle.perField`), or a
    /// replay's topics; and whether each one's messages are retained (`DevicePlan.fieldRetains`).
    let fieldTopics: [Topic]
    let fieldRetains: [Bool]
    /// Its clock and place in its recording, for a device that replays one (`DevicePlan.replay`):
    /// it then sends the recording's messages, not ticks.
    private(set) var replay: ReplayDriver?
    /// Its MQTT 5 properties as libmosquitto's list, made once (`DevicePlan.properties`).
    let properties: PropertyList?
    private let signals: DeviceSignals
    // Strong `let`s, the context's parts too: a method of `self` uses them without a reference
    // count changing. Through the context, or held `unowned(unsafe)`, each use before a call
    // retained and released it: nine retains a tick (callgrind, publish: max). The cycles through
    // the context and the telemetry's queue and sleepers are broken by `DeviceConnection.dismantle()`.
    /// Its connection's telemetry, which takes its ticks.
    let telemetry: Telemetry
    let context: LoopContext
    let counters: Counters
    let control: RunControl
    private var schedule: Schedule?
    /// Its device group, by index: the context's per-group state.
    let group: Int
    /// Ticks a second: the plan's, until a rate command changes it.
    private var perSecond: Double
    private var wallStart = 0.0
    /// Messages handed to libmosquitto, and of those the broker refused, for `run --verify`'s
    /// lost count: a refused message is not the broker's to deliver.
    private(set) var published = 0
    private(set) var refused = 0
    /// With `--verify`: whether the subscriber of its topic is subscribed now, and what it
    /// published while that was not so, which could not be received. Set before the loops run.
    var verifierPresence: VerifierPresence?
    var publishedWhileVerifierAway = 0
    /// What it published to a host of `broker.hosts` other than the one the verifier was on.
    var publishedUnwatched = 0
    /// Its part in a capacity step's `lost`, in a search with that SLO; set before the loops run.
    var stepWindow: StepWindow?

    /// Before `payload` is handed to libmosquitto on the device's topic: whether its step
    /// window holds it (`StepWindow.claim`); false without one.
    func claimsWindow(_ payload: UnsafeRawBufferPointer) -> Bool {
        guard let stepWindow, let sequence = plan.verify.sequence(in: payload) else { return false }
        return stepWindow.claim(sequence)
    }

    /// The connection handed a message to libmosquitto; `inWindow`, what `claimsWindow` said of it.
    func notePublished(inWindow: Bool) {
        published += 1
        if inWindow { stepWindow?.countPublished() }
        if let verifierPresence {
            switch verifierPresence.hears(host: telemetry.host) {
            case nil: publishedWhileVerifierAway += 1
            case false?: publishedUnwatched += 1
            case true?: break
            }
        }
    }
    /// The broker refused one of its messages: not the broker's to deliver.
    func noteRefused() {
        refused += 1
    }

    /// A message counted as published failed after all: libmosquitto held it for a broker that
    /// turned out to break QoS 2.
    func notePublishFailed() {
        published -= 1
    }

    /// The last payload published, kept for discovered devices only: the state Home Assistant
    /// asks for when it starts. Empty until the first.
    private(set) var lastPayload: [UInt8] = []

    /// Keeps `payload` as the last published, in the storage of the one before.
    func keepLastPayload(_ payload: UnsafeRawBufferPointer) {
        lastPayload.removeAll(keepingCapacity: true)
        lastPayload.append(contentsOf: payload)
    }

    /// Its next tick.
    private let timer: Timer

    /// `sparkplugAliases`, for a device of a Sparkplug edge node: the first alias of its metrics.
    init(
        plan: DevicePlan, seed: UInt64, connection: DeviceConnection, counters: Counters, context: LoopContext,
        sparkplugAliases: UInt64? = nil, properties: PropertyList? = nil
    ) {
        self.plan = plan
        self.properties = properties
        group = connection.plan.group
        perSecond = plan.perSecond
        topic = Topic(plan.topic)
        fieldTopics = plan.fieldTopics.map(Topic.init)
        fieldRetains = plan.fieldRetains
        signals = DeviceSignals(
            payload: plan.payload, deviceID: plan.id, index: plan.index,
            seed: seed, sampleInterval: plan.sampleInterval)
        telemetry = connection.telemetry
        self.context = context
        self.counters = counters
        control = context.control
        heartbeat = plan.onChange?.heartbeat ?? 0
        if let sparkplugAliases, let reporting = plan.sparkplug?.reporting {
            signals.useSparkplug(firstAlias: sparkplugAliases, reporting: reporting)
        }
        speaksSparkplug = sparkplugAliases != nil
        ticksWhole = heartbeat == 0 && !signals.isPerField && !speaksSparkplug
        timer = Timer(on: context.loop)
        timer.target = self
        if let onChange = plan.onChange { signals.watch(onChange.fields) }
        if let replay = plan.replay { self.replay = ReplayDriver(plan: replay, device: self, loop: context.loop) }
    }

    /// For an `onChange` device (`heartbeat` above 0): the seconds after which an unchanged tick
    /// is sent all the same, and the device time of the last tick sent (`nil` before the first).
    /// Plain values: the tick reads them without touching the plan's arrays.
    private let heartbeat: Double
    private var sentAt: Double?
    /// A device of a Sparkplug edge node: its ticks are DDATA, by exception or not.
    private let speaksSparkplug: Bool
    /// A Sparkplug device whose DBIRTH is still to come while its node is born
    /// (`SparkplugDeviceRoster.holdsData`): its ticks count as `paused`, as its node's do before
    /// the node's births. Set by its connection.
    var holdsDataUntilBirth = false
    /// Each tick one message, always sent: not `onChange`, per field or Sparkplug.
    private let ticksWhole: Bool

    var hasStarted: Bool { schedule != nil || replay?.hasStarted == true }

    /// Starts the device's clock at its first CONNACK: its first tick is due now, or its start
    /// delay (the group's `jitter`) later; the schedule counts from that first tick.
    func start(now: UInt64) {
        guard schedule == nil, !isStopped else { return }
        if let replay {
            replay.start(now: now, delay: plan.startDelay)
            return
        }
        if publishesAtMax {
            schedule = Schedule(start: now, perSecond: perSecond)
            wallStart = WallTime.now().secondsSinceEpoch
            timer.schedule(at: now)
            return
        }
        let first = now &+ MonotonicClock.nanoseconds(plan.startDelay)
        schedule = Schedule(start: first, perSecond: perSecond, profile: plan.profile, runStart: control.startedAt)
        wallStart = WallTime.now().secondsSinceEpoch + plan.startDelay
        timer.schedule(at: first)
    }

    /// `publish: max`: as fast as the connection takes, paced by its back-pressure.
    var publishesAtMax: Bool { !plan.perSecond.isFinite }

    /// Ticks `perSecond` times a second from now on (a rate command); a device that has not
    /// started yet will at its first CONNACK. Not for `publish: max` devices, which have no rate.
    func setRate(_ perSecond: Double, now: UInt64) {
        guard !publishesAtMax, replay == nil, perSecond.isFinite, perSecond > 0 else { return }
        self.perSecond = perSecond
        guard let schedule else { return }
        let next = schedule.rescheduled(perSecond: perSecond, at: now)
        self.schedule = next
        timer.schedule(at: next.deadline)
    }

    /// Ticks no more: its connection left the fleet.
    func stop() {
        timer.cancel()
        replay?.stop()
        schedule = nil
        isStopped = true
    }

    /// Stopped for good (`stop()`): a CONNACK does not start it again.
    private var isStopped = false

    /// Carries out a command's changes to the device's fields and rate, all or none.
    func take(_ command: DeviceCommand, now: UInt64) throws(CommandRejection) {
        if command.perSecond != nil, publishesAtMax {
            throw CommandRejection("device group '\(plan.group)' publishes at max: it has no rate to change")
        }
        if command.perSecond != nil, replay != nil {
            throw CommandRejection("device group '\(plan.group)' replays a recording: it has no rate to change")
        }
        try signals.take(command.assignments)
        if let perSecond = command.perSecond { setRate(perSecond, now: now) }
    }

    /// The device's state as of `now` into the loop's payload buffer: a payload made beside the
    /// schedule (a command's answer), not a tick.
    func encodeState(now: UInt64) {
        let elapsed = schedule.map { $0.elapsed(at: now) } ?? 0
        context.payload.removeAll()
        signals.encode(elapsed: elapsed, wallClock: WallTime.now().secondsSinceEpoch, into: &context.payload)
        if signals.hasFaults { counters.add(faults: signals.takeFaultCounts()) }
        if signals.keepsSize { counters.add(.oversized, signals.takeOversized()) }
    }

    /// The datatype its last DBIRTH announced for `metric`: how a DCMD's integer is read.
    func sparkplugBirthType(of metric: SparkplugMetric) -> SparkplugDataType? {
        signals.sparkplugBirthType(of: metric)
    }

    /// A Sparkplug device's DBIRTH as of `now` into `buffer`: every metric, named, aliased and
    /// typed.
    func encodeSparkplugBirth(now: UInt64, wallClock: Double, into buffer: inout PayloadBuffer) {
        signals.encodeSparkplugBirth(elapsed: elapsed(at: now), wallClock: wallClock, into: &buffer)
    }

    /// A Sparkplug device's DDATA as of `now` into `buffer`, beside the schedule (a DCMD's
    /// answer); how many metrics it holds.
    func encodeSparkplugData(now: UInt64, wallClock: Double, into buffer: inout PayloadBuffer) -> Int {
        signals.encodeSparkplugData(elapsed: elapsed(at: now), wallClock: wallClock, into: &buffer)
    }

    /// The topic of field `field` in the per-field style, or the device's own for -1.
    func topic(field: Int) -> Topic { field < 0 ? topic : fieldTopics[field] }

    /// After `encodeState` in the per-field style: each field's bytes in the loop's buffer;
    /// `nil` for the other styles, whose state is one message.
    var statePieces: [(field: Int, bytes: Range<Int>)]? { signals.isPerField ? signals.pieces : nil }

    /// The state's pieces as one JSON object (a request's reply in the per-field style).
    func statePiecesAsObject(_ bytes: [UInt8]) -> [UInt8] { signals.piecesAsObject(bytes) }

    /// A `publish: max` device that waited for room ticks at `now`.
    func wake(at now: UInt64) {
        timer.schedule(at: now)
    }

    func timerFired(_ timer: Timer, now: UInt64) {
        if publishesAtMax {
            tickAtMax(now: now)
            return
        }
        guard var schedule, control.isDue(schedule.deadline) else { return }
        // The --messages budget is taken in `tick`, a message at a time: an unchanged tick takes
        // none, a per-field tick one per field.
        guard tick(elapsed: schedule.elapsed, due: schedule.deadline, now: now) else { return }
        schedule.advance()
        self.schedule = schedule
        timer.schedule(at: schedule.deadline)
    }

    /// One message of a `publish: max` device, if the connection has room; otherwise the device
    /// waits until the connection wakes it (an acknowledgement, a drained socket, a CONNACK).
    /// Its next tick is queued behind the timers and sockets already due, so the loop stays fair.
    private func tickAtMax(now: UInt64) {
        guard let schedule, control.isDue(now) else { return }
        guard telemetry.canSendNow else {
            telemetry.wake(self)
            return
        }
        guard tick(elapsed: Double(now &- schedule.start) / 1e9, due: nil, now: now) else { return }
        timer.schedule(at: now)
    }

    /// One tick, whatever paces it: counted as scheduled, its payload made `elapsed` seconds
    /// into the schedule and handed to the connection, which counts where it ends. `due` is its
    /// deadline, `nil` for `publish: max`, which has none. False once the `--messages` budget is
    /// spent: the schedule stops.
    @inline(__always)
    private func tick(elapsed: Double, due: UInt64?, now: UInt64) -> Bool {
        guard ticksWhole else { return tickInParts(elapsed: elapsed, due: due, now: now) }
        if let counted = tickUnmade() { return counted }
        guard control.takeTick() else { return false }
        encode(elapsed: elapsed)
        counters.add(.scheduled)
        context.payload.withBytes { _ = telemetry.submit(from: self, payload: $0, due: due, now: now) }
        return true
    }

    /// A tick its connection cannot take now (parked, or down under `offline: drop`) is counted
    /// where it ends without being made: made, it would use up a number of its counter, which
    /// counts publishes, and a subscriber would read the hole as a message the broker lost.
    /// `nil` when the connection takes it; else whether the `--messages` budget allowed it.
    private func tickUnmade() -> Bool? {
        guard let untaken = telemetry.untakenTick else { return nil }
        guard control.takeTick() else { return false }
        counters.add(.scheduled)
        counters.add(untaken)
        return true
    }

    /// The tick's payload into the loop's buffer, its faults counted, offered as its group's sample.
    @inline(__always)
    private func encode(elapsed: Double) {
        context.payload.removeAll()
        signals.encode(elapsed: elapsed, wallClock: wallStart + elapsed, into: &context.payload)
        if signals.hasFaults { counters.add(faults: signals.takeFaultCounts()) }
        if signals.keepsSize { counters.add(.oversized, signals.takeOversized()) }
        if signals.isRaw {
            context.offerSample(group: group, describe: DeviceSignals.rawText)
        } else if signals.keepsSize {
            context.offerSample(group: group, describe: DeviceSignals.sizedText)
        } else {
            context.offerSample(group: group)
        }
    }

    /// A Sparkplug device's tick, its DDATA: kept back as `unchanged` when it reports by
    /// exception and nothing changed; else counted as scheduled, taken from the budget and
    /// counted wherever it ends.
    private func tickSparkplug(elapsed: Double, due: UInt64?, now: UInt64) -> Bool {
        if holdsDataUntilBirth {
            // No DDATA before its DBIRTH, and what was not sent is not marked as sent.
            counters.add(.scheduled)
            guard control.takeTick() else {
                counters.add(.scheduled, -1)
                return false
            }
            counters.add(.paused)
            return true
        }
        context.payload.removeAll()
        let metrics = signals.encodeSparkplugData(elapsed: elapsed, wallClock: wallStart + elapsed, into: &context.payload)
        if signals.hasFaults { counters.add(faults: signals.takeFaultCounts()) }
        counters.add(.scheduled)
        guard metrics > 0 else {
            counters.add(.unchanged)
            return true
        }
        guard control.takeTick() else {
            counters.add(.scheduled, -1)
            return false
        }
        context.offerSample(group: group, describe: signals.sparkplugText)
        context.payload.withBytes { _ = telemetry.submit(from: self, payload: $0, due: due, now: now) }
        return true
    }

    /// A tick of an `onChange` device or in the per-field style: looked at, and kept back when
    /// nothing watched changed and the heartbeat is not due (`unchanged`, one per message it
    /// would have been); else each message, one per field in the per-field style, counted as
    /// scheduled, taken from the budget and counted wherever it ends. What was watched counts
    /// as sent only once the connection took it (published or queued).
    private func tickInParts(elapsed: Double, due: UInt64?, now: UInt64) -> Bool {
        if speaksSparkplug { return tickSparkplug(elapsed: elapsed, due: due, now: now) }
        // A field alone on its topic carries no counter to read (`VerifyPlan`): made all the same.
        if !signals.isPerField, let counted = tickUnmade() { return counted }
        encode(elapsed: elapsed)
        let parts = signals.isPerField ? signals.pieces.count : 1
        if heartbeat > 0, let sentAt, !signals.hasChanged, elapsed - sentAt < heartbeat {
            counters.add(.scheduled, parts)
            counters.add(.unchanged, parts)
            return true
        }
        var taken = false
        var more = true
        context.payload.withBytes { bytes in
            if !signals.isPerField {
                guard control.takeTick() else { return more = false }
                counters.add(.scheduled)
                taken = telemetry.submit(from: self, payload: bytes, due: due, now: now)
                return
            }
            for (field, range) in signals.pieces {
                guard control.takeTick() else { return more = false }
                counters.add(.scheduled)
                if telemetry.submit(from: self, payload: UnsafeRawBufferPointer(rebasing: bytes[range]), due: due, now: now, field: field) {
                    taken = true
                }
            }
        }
        if heartbeat > 0, taken { markSent(at: elapsed) }
        return more
    }

    /// An `onChange` device's watched values went out at `elapsed` (a tick or an answer).
    func markSent(at elapsed: Double) {
        guard heartbeat > 0 else { return }
        signals.markSent()
        sentAt = elapsed
    }

    /// The connection is up again (a CONNACK, a resume): the next tick goes out whatever it says,
    /// since what was sent before may not have arrived.
    func connectionCameUp() {
        sentAt = nil
    }

    /// Whether its next tick is due at `now` or before: at a CONNACK, that tick is its state.
    func tickIsDue(by now: UInt64) -> Bool {
        schedule.map { $0.deadline <= now } ?? false
    }

    /// The device's time now, between ticks (a command's answer).
    func elapsed(at now: UInt64) -> Double { schedule.map { $0.elapsed(at: now) } ?? 0 }
}
