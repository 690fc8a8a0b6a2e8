import Reactor
import Signals

/// A device of the dry run: its behaviour (the same a run's `Device` has) on the virtual clock,
/// from its connection's CONNACK at time zero.
final class DryRunDevice: TimerTarget {
    let plan: DevicePlan
    let index: Int
    private var pacing = Pacing.unstarted
    let source: any MessageSource
    /// Its timer on the dry run's clock (`DryRunClock`), which `DryRun` fires.
    private(set) var timer: Timer!
    private unowned let connection: DryRunConnection
    /// Its ticks wait, as its connection's roles say (a Sparkplug device before its DBIRTH).
    var isHeld = false
    /// Seconds from the CONNACK to its time 0 (its start delay).
    private var origin = 0.0

    init(plan: DevicePlan, index: Int, behaviour: DeviceBehaviour, connection: DryRunConnection) {
        self.plan = plan
        self.index = index
        source = behaviour.source
        self.connection = connection
        timer = Timer(target: self)
    }

    /// Its clock starts at the CONNACK, time zero.
    func start() {
        // Its start delay as the plan says it, not rounded to the nanosecond: what `sample` shows.
        origin = pacing.start(plan, perSecond: plan.perSecond, now: 0, runStart: 0) > 0 ? plan.startDelay : 0
    }

    /// When its next message is due on the virtual clock; `nil` when none ever is.
    var deadline: UInt64? {
        pacing.deadline(now: connection.now).flatMap { $0 < Schedule.never ? $0 : nil }
    }

    /// Its time now: seconds into its life.
    var elapsed: Double { pacing.elapsed(at: connection.now) }

    func topic(slot: Int) -> String { slot < 0 ? plan.topic : source.topics[slot] }
    func retains(slot: Int) -> Bool { slot < 0 ? plan.retain : source.retains[slot] }

    /// What a tick did: how many messages it printed, whether it kept them back (`unchanged`),
    /// and whether the printer's budget had room for them all.
    struct Ticked {
        /// Seconds from the CONNACK to the tick.
        var seconds = 0.0
        var printed = 0
        var keptBack = false
        var more = true
    }

    /// The tick due now, its messages printed as the run would publish them, and on to the next.
    func tick() -> Ticked {
        guard let due = pacing.due(now: connection.now) else { return Ticked() }
        defer { pacing.advance() }
        guard !isHeld else { return Ticked() }
        var time = due.time
        time.wallClock = connection.wallStart + origin + time.elapsed
        connection.outgoing.clear()
        source.writeTick(time, into: &connection.outgoing)
        var ticked = Ticked(seconds: origin + time.elapsed, keptBack: connection.outgoing.keptBack > 0)
        for message in connection.outgoing.messages {
            let done = connection.outgoing.withBytes(of: message) {
                connection.printTick($0, of: self, slot: message.slot, at: ticked.seconds)
            }
            guard done else {
                ticked.more = false
                break
            }
            ticked.printed += 1
        }
        if ticked.printed > 0 { source.sent(at: time.elapsed) }
        return ticked
    }

    /// At the CONNACK, the state a run's device says then (`DevicePlan.saysStateAtConnect`).
    func sayStateAtConnect() {
        guard plan.saysStateAtConnect(tickIsDue: pacing.tickIsDue(by: 0)) else { return }
        sayState(what: "state")
    }

    /// Its state now, printed as a run publishes it beside its schedule; how many messages.
    @discardableResult
    func sayState(what: String) -> Int {
        connection.outgoing.clear()
        source.writeState(TickTime(elapsed: elapsed, wallClock: connection.wallClock), into: &connection.outgoing)
        for message in connection.outgoing.messages {
            let text = connection.outgoing.withBytes(of: message) { source.describe(Array($0)) }
            connection.printer.print(
                plan, at: Double(connection.now) / 1e9, topic: topic(slot: message.slot), payload: text,
                retain: retains(slot: message.slot), kind: what == "state" ? .state : .beside(what))
        }
        if !connection.outgoing.messages.isEmpty { source.sent(at: elapsed) }
        return connection.outgoing.messages.count
    }

    /// Fired by `DryRun`, which knows the device from its timer.
    func timerFired(_ timer: Timer, now: UInt64) {}
}
