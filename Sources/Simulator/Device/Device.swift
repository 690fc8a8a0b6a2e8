import MQTT
import Mosquitto
import Reactor
import Report
import Signals

/// One simulated device of a run: its behaviour (`DeviceBehaviour`: when it ticks, what each
/// tick sends) on its loop's clock from its connection's first CONNACK, each message handed to
/// its connection's telemetry, which counts where it ends. Confined to its connection's loop.
final class Device: TimerTarget {
    let plan: DevicePlan
    /// Its topic, and its source's (field or recorded topics, by slot), encoded once: every
    /// publish passes one to the client; and whether a message on each is retained. A script
    /// adds a slot for each topic it names as it sends (`ScriptedSource`): `topic(slot:)`
    /// learns them then.
    let topic: Topic
    private(set) var fieldTopics: [Topic]
    private(set) var fieldRetains: [Bool]
    /// Its MQTT 5 properties as libmosquitto's list, made once (`DevicePlan.properties`).
    let properties: PropertyList?
    /// What each tick sends: the same source a dry run of the device calls.
    let source: any MessageSource
    private var pacing = Pacing.unstarted
    /// Its place among its connection's devices.
    let index: Int
    /// Whether a tick its connection cannot take is made all the same: how many messages it is,
    /// or whether it is any, only making it tells (`MessageSource.countsItsMessages`).
    private let makesUntakenTicks: Bool
    // Strong `let`s, the context's parts too: a method of `self` uses them without a reference
    // count changing. Through the context, or held `unowned(unsafe)`, each use before a call
    // retained and released it: nine retains a tick (callgrind, publish: max). The cycles through
    // the context and the telemetry's queue and sleepers are broken by `DeviceConnection.dismantle()`.
    private let telemetry: Telemetry
    private let context: LoopContext
    private let counters: Counters
    private let control: RunControl
    /// Its device group, by index: the context's per-group state.
    private let group: Int
    /// Ticks a second: the plan's, until a rate command changes it.
    private var perSecond: Double
    /// The wall clock at its time 0 (`TickTime.elapsed`).
    private var wallStart = 0.0
    /// Its next tick.
    private let timer: Timer
    /// Its ticks wait, counted as `paused`, while its connection's roles say so: a device of an
    /// edge node before its birth. What is not sent is not made.
    var isHeld = false

    /// Messages handed to libmosquitto, and of those the broker refused, for `run --verify`'s
    /// lost count: a refused message is not the broker's to deliver.
    private(set) var published = 0
    private(set) var refused = 0
    /// With `--verify`: whether the subscriber of its topic is subscribed now, and what it
    /// published while that was not so, which could not be received. Set before the loops run.
    var verifierPresence: VerifierPresence?
    private(set) var publishedWhileVerifierAway = 0
    /// What it published to a host of `broker.hosts` other than the one the verifier was on.
    private(set) var publishedUnwatched = 0
    /// Its part in a capacity step's `lost`, in a search with that SLO; set before the loops run.
    var stepWindow: StepWindow?

    init(
        plan: DevicePlan, index: Int, behaviour: DeviceBehaviour, telemetry: Telemetry, group: Int, counters: Counters,
        context: LoopContext, properties: PropertyList?
    ) {
        self.plan = plan
        self.index = index
        self.properties = properties
        self.group = group
        perSecond = plan.perSecond
        source = behaviour.source
        makesUntakenTicks = !source.countsItsMessages
        topic = Topic(plan.topic)
        fieldTopics = source.topics.map(Topic.init)
        fieldRetains = source.retains
        self.telemetry = telemetry
        self.context = context
        self.counters = counters
        control = context.control
        timer = Timer(on: context.loop)
        timer.target = self
    }

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

    var hasStarted: Bool { pacing.hasStarted }

    /// Starts the device's clock at its first CONNACK: its first tick is due now, or its start
    /// delay (the group's `jitter`) later.
    func start(now: UInt64) {
        guard case .unstarted = pacing else { return }
        let origin = pacing.start(plan, perSecond: perSecond, now: now, runStart: control.startedAt)
        wallStart = WallTime.now().secondsSinceEpoch + Double(Int64(bitPattern: origin &- now)) / 1e9
        if let deadline = pacing.deadline(now: now) { timer.schedule(at: deadline) }
    }

    /// Ticks `perSecond` times a second from now on (a rate command); a device that has not
    /// started yet will at its first CONNACK. Not for `publish: max` devices nor a recording's,
    /// which have no rate.
    func setRate(_ perSecond: Double, now: UInt64) {
        guard plan.perSecond.isFinite, plan.replay == nil, perSecond.isFinite, perSecond > 0 else { return }
        self.perSecond = perSecond
        pacing.setRate(perSecond, now: now)
        if pacing.hasStarted, let deadline = pacing.deadline(now: now) { timer.schedule(at: deadline) }
    }

    /// Ticks no more: its connection left the fleet.
    func stop() {
        timer.cancel()
        pacing = .stopped
    }

    /// Carries out a command's changes to the device's fields and rate, all or none.
    func take(_ command: DeviceCommand, now: UInt64) throws(CommandRejection) {
        if command.perSecond != nil, !plan.perSecond.isFinite {
            throw CommandRejection("device group '\(plan.group)' publishes at max: it has no rate to change")
        }
        if command.perSecond != nil, plan.replay != nil {
            throw CommandRejection("device group '\(plan.group)' replays a recording: it has no rate to change")
        }
        try source.take(command.assignments, at: pacing.elapsed(at: now))
        if let perSecond = command.perSecond { setRate(perSecond, now: now) }
    }

    /// The topic of slot `slot` (`Outgoing.Message.slot`): the device's own for -1.
    @inline(__always)
    func topic(slot: Int) -> Topic {
        if slot < 0 { return topic }
        if slot >= fieldTopics.count { learnTopics() }
        return fieldTopics[slot]
    }

    /// Whether a message to slot `slot` is retained.
    @inline(__always)
    func retains(slot: Int) -> Bool {
        if slot < 0 { return plan.retain }
        if slot >= fieldRetains.count { learnTopics() }
        return fieldRetains[slot]
    }

    /// The topics its source named since they were last encoded: a script's, as it sends.
    private func learnTopics() {
        fieldTopics += source.topics[fieldTopics.count...].map(Topic.init)
        fieldRetains = source.retains
    }

    /// A `publish: max` device that waited for room ticks at `now`.
    func wake(at now: UInt64) {
        timer.schedule(at: now)
    }

    func timerFired(_ timer: Timer, now: UInt64) {
        switch pacing {
        case .scheduled(let schedule):
            guard control.isDue(schedule.deadline) else { return }
            // The --messages budget is taken in `tick`, a message at a time: a tick kept back
            // takes none, a per-field tick one per field.
            guard tick(TickTime(elapsed: schedule.elapsed, wallClock: 0), due: schedule.deadline, now: now) else { return }
        case .fastest(let start):
            // As fast as the connection takes them: when it has no room, the device waits until
            // the connection wakes it (an acknowledgement, a drained socket, a CONNACK). Its next
            // tick is queued behind the timers and sockets already due, so the loop stays fair.
            guard control.isDue(now) else { return }
            guard telemetry.canSendNow else { return telemetry.wake(self) }
            guard tick(TickTime(elapsed: Double(now &- start) / 1e9, wallClock: 0), due: nil, now: now) else { return }
        case .replaying(let cursor):
            guard control.isDue(cursor.deadline) else { return }
            guard tick(TickTime(elapsed: cursor.elapsed, wallClock: 0, index: cursor.index), due: cursor.deadline, now: now) else {
                return
            }
        case .unstarted, .stopped:
            return
        }
        pacing.advance()
        if let deadline = pacing.deadline(now: now) { timer.schedule(at: deadline) }
    }

    /// One tick, whatever paces it: its messages made `time.elapsed` seconds into the device's
    /// life and each counted as scheduled and handed to the connection, which counts where it
    /// ends; or kept back, counted as `unchanged`. `due` is its deadline, `nil` for `publish:
    /// max`, which has none. False once the `--messages` budget is spent: the pacing stops.
    @inline(__always)
    private func tick(_ time: TickTime, due: UInt64?, now: UInt64) -> Bool {
        if isHeld { return tickUnmade(as: .paused) }
        // A tick its connection cannot take now (parked, or down under `offline: drop`) is counted
        // where it ends without being made: made, it would use up a number of its counter, which
        // counts publishes, and a subscriber would read the hole as a message the broker lost.
        // Not a source whose tick may make several messages or none (per field, by exception),
        // whose count only making them tells.
        if let untaken = telemetry.untakenTick, !makesUntakenTicks { return tickUnmade(as: untaken) }
        var time = time
        time.wallClock = wallStart + time.elapsed
        context.outgoing.clear()
        source.writeTick(time, into: &context.outgoing)
        source.tally(into: counters)
        if context.wantsSample(group: group) { context.keepSample(group: group, source.describe(context.outgoing.payload.bytes)) }
        let keptBack = context.outgoing.keptBack
        if keptBack > 0 {
            counters.add(.scheduled, keptBack)
            counters.add(.unchanged, keptBack)
        }
        var taken = false
        // By index: iterating the array itself would retain and release it every tick.
        var index = 0
        while index < context.outgoing.count {
            let message = context.outgoing[index]
            index += 1
            guard control.takeTick() else { return false }
            counters.add(.scheduled)
            if context.outgoing.withBytes(
                of: message, { telemetry.submit(from: self, payload: $0, due: due, now: now, slot: message.slot) })
            {
                taken = true
            }
        }
        if taken { source.sent(at: time.elapsed) }
        return true
    }

    /// A tick not made: taken from the budget and counted as scheduled and as `untaken`.
    private func tickUnmade(as untaken: Figure) -> Bool {
        guard control.takeTick() else { return false }
        counters.add(.scheduled)
        counters.add(untaken)
        return true
    }

    /// The connection is up again (a CONNACK, a resume): the device starts, if it has not, and
    /// its next tick goes out whatever it says, since what was sent before may not have arrived.
    func connectionCameUp(now: UInt64) {
        source.connectionCameUp()
        start(now: now)
    }

    /// A device a dashboard shows (`discovery`, `availability`, `commands`) says its state at each
    /// CONNACK, as Tasmota and Zigbee2MQTT do, rather than up to a publish interval later; where a
    /// tick falls at the CONNACK that tick is the state. Not a tick: counted as `stateMessages`.
    func sayStateAtConnect(now: UInt64) {
        guard plan.saysStateAtConnect(tickIsDue: pacing.tickIsDue(by: now)) else { return }
        counters.add(.stateMessages, sayState(now: now, what: "state"))
    }

    /// The device's state as of `now`, beside its schedule, published on its topics as its ticks
    /// are (its group's `properties` too: a reader that goes by them must not find one message of
    /// the stream without); how many messages libmosquitto took. `what` names it in a warning.
    /// The state stays in the loop's `outgoing` for a reply made of it.
    @discardableResult
    func sayState(now: UInt64, what: String) -> Int {
        writeState(now: now)
        var sent = 0
        for message in context.outgoing.messages {
            let taken = context.outgoing.withBytes(of: message) { payload in
                // On the device's topic: what --verify expects there.
                let inWindow = message.slot < 0 && claimsWindow(payload)
                guard telemetry.publish(state: payload, of: self, slot: message.slot, what: what) else { return false }
                if message.slot < 0 { notePublished(inWindow: inWindow) }
                return true
            }
            if taken { sent += 1 }
        }
        if sent > 0 { source.sent(at: pacing.elapsed(at: now)) }
        return sent
    }

    /// The device's state as of `now` into the loop's `outgoing`, and not published: a command's
    /// answer where the state itself does not go out.
    func writeState(now: UInt64) {
        context.outgoing.clear()
        source.writeState(TickTime(elapsed: pacing.elapsed(at: now), wallClock: WallTime.now().secondsSinceEpoch), into: &context.outgoing)
        source.tally(into: counters)
    }

    /// The device's time now, between ticks (a command's answer).
    func elapsed(at now: UInt64) -> Double { pacing.elapsed(at: now) }
}
