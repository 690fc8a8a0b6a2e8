import Glibc
import Reactor
import Report
import Synchronization

/// The run's subscriber groups (`subscribers:`): their connections, on event loops of their
/// own, apart from the devices' so that receiving never delays a tick, and their figures,
/// which never mix into the devices'. They connect and subscribe before the devices start
/// (`start`), get a short time at the end to receive what is still on its way (`settle`), and
/// are read once their loops have stopped (`figures`), or by each loop while they run
/// (`liveFigures`).
///
/// Its connections and tallies are their loops' (`LoopBound`): touched there until the loops
/// have stopped, and read only after; what other threads read meanwhile is atomic or behind a
/// lock.
package final class Subscribers: Sendable {
    private let logger: Logger
    private let plans: [SubscriberGroupPlan]
    private let loops: [EventLoop]
    private let connections: [LoopBound<SubscriberConnection>]
    /// Each group's tallies, one per loop it has members on, with that loop's index.
    private let tallies: [[(loop: Int, tally: LoopBound<SubscriberTally>)]]
    /// Each loop's part of every group's figures, as it last gave them (`liveFigures`).
    private let liveParts: Locked<[[SubscriberFigures]]>
    /// The connections on each loop, in the order of `loops`.
    private let membersByLoop: [LoopBound<[SubscriberConnection]>]
    /// Each loop's timer that gives its part of the figures once a second.
    private let refreshes: [LoopBound<LiveRefresh>]
    let receivedCount = Atomic<Int>(0)
    let subscribedConnections = Atomic<Int>(0)
    let connectionsUp = Atomic<Int>(0)
    /// Whether any connection has had its CONNACK: what a run of subscribers alone connected.
    let everConnected = Atomic<Bool>(false)
    let finishedConnections = Atomic<Int>(0)
    /// 0 before `start`, 1 while the loops run, 2 once `stop` has stopped them: what
    /// `liveFigures` may ask of them.
    private let phase = Atomic<Int>(0)
    /// Warnings said so far per group: a broker that goes away would otherwise have every
    /// member of a group of thousands say so.
    private let warnings: Locked<[Int]>
    static let warningsPerGroup = 5

    /// How long the devices wait for every subscriber connection to be subscribed before they
    /// start anyway (a slow ramp then goes on while the devices publish).
    package static let subscribeWait = Duration.seconds(10)
    /// At the end: the subscribers receive until nothing has come for `settleQuiet`, at most
    /// `settleLimit`.
    package static let settleQuiet = 0.5
    package static let settleLimit = 5.0

    /// The groups' connections on at most `loops` event loops: the members of a group that
    /// receives the whole stream dealt over them in turn, every member of a shared group on one
    /// (see `SubscriberTally`).
    package init(plans: [SubscriberGroupPlan], loops: Int, connackTimeout: Duration = Defaults.connackTimeout, logger: Logger) throws {
        self.logger = logger
        self.plans = plans
        let memberCount = plans.reduce(0) { $0 + $1.members.count }
        let loopCount = max(1, min(loops, memberCount))
        self.loops = try (0..<loopCount).map { try EventLoop(name: "devsim-subscribe-\($0)", logger: logger) }
        warnings = Locked(Array(repeating: 0, count: plans.count))
        // Before the loops run: what they will own is made here.
        var connections: [SubscriberConnection] = []
        var tallies: [[(loop: Int, tally: LoopBound<SubscriberTally>)]] = []
        var next = 0
        for (group, plan) in plans.enumerated() {
            var byLoop: [Int: SubscriberTally] = [:]
            var order: [(loop: Int, tally: LoopBound<SubscriberTally>)] = []
            let sharedLoop = next % loopCount
            if plan.isShared, !plan.members.isEmpty { next += 1 }
            for member in plan.members {
                let loop: Int
                if plan.isShared {
                    loop = sharedLoop
                } else {
                    loop = next % loopCount
                    next += 1
                }
                let tally = byLoop[loop] ?? SubscriberTally(plan: plan)
                if byLoop[loop] == nil {
                    byLoop[loop] = tally
                    order.append((loop, LoopBound(tally, on: self.loops[loop])))
                }
                connections.append(
                    try SubscriberConnection(
                        plan: plan, member: member, group: group, tally: tally, connackTimeout: connackTimeout, loop: self.loops[loop]))
            }
            tallies.append(order)
        }
        self.connections = connections.map { LoopBound($0, on: $0.loop) }
        self.tallies = tallies
        liveParts = Locked(Array(repeating: [], count: loopCount))
        let loops = self.loops
        membersByLoop = loops.map { loop in LoopBound(connections.filter { $0.loop === loop }, on: loop) }
        refreshes = loops.indices.map { LoopBound(LiveRefresh(loop: loops[$0], index: $0), on: loops[$0]) }
        for connection in connections { connection.subscribers = self }
        for refresh in refreshes { refresh.value.subscribers = self }
    }

    package var connectionCount: Int { connections.count }

    /// Opens every connection at its place in the ramp and waits, at most `timeout`, until all
    /// are subscribed; returns whether they were.
    @discardableResult
    package func start(timeout: Duration) throws -> Bool {
        for loop in loops { try loop.start() }
        phase.store(1, ordering: .releasing)
        for refresh in refreshes { refresh.execute { $0.timer.schedule(at: MonotonicClock.now()) } }
        let start = MonotonicClock.now()
        for connection in connections {
            connection.execute { $0.open(start: start) }
        }
        let deadline = start &+ MonotonicClock.nanoseconds(timeout)
        while subscribedConnections.load(ordering: .relaxed) < connections.count {
            guard MonotonicClock.now() < deadline else {
                logger.warning(
                    "subscribers: \(subscribedConnections.load(ordering: .relaxed)) of \(connections.count) connections subscribed "
                        + "within \(formatSeconds(timeout)); the devices start now, and the rest subscribe while they publish")
                return false
            }
            usleep(5_000)
        }
        logger.info(
            "subscribers: \(Text.counted(connections.count, "connection")) of \(Text.counted(plans.count, "group")) subscribed in "
                + formatSeconds(Double(MonotonicClock.now() &- start) / 1e9))
        return true
    }

    /// Waits for what is on its way: until nothing has arrived for `quiet` seconds, at most
    /// `limit`. The devices' QoS 1/2 messages are acknowledged by then, and so in the broker's
    /// hands: what it has for the subscribers is on its way or queued for them.
    package func settle(quiet: Double = Subscribers.settleQuiet, limit: Double = Subscribers.settleLimit) {
        let start = MonotonicClock.now()
        var last = receivedCount.load(ordering: .relaxed)
        var lastChange = start
        while true {
            let now = MonotonicClock.now()
            let count = receivedCount.load(ordering: .relaxed)
            if count != last { (last, lastChange) = (count, now) }
            if now - lastChange >= MonotonicClock.nanoseconds(quiet) || now - start >= MonotonicClock.nanoseconds(limit) { return }
            usleep(10_000)
        }
    }

    /// Disconnects (at most a second) and stops the loops; the figures can be read from here.
    package func stop() {
        stopSubscribing(
            connections: connections.map { connection in (connection.loop, { connection.value.stop() }) },
            finished: { finishedConnections.load(ordering: .relaxed) }, loops: loops)
        phase.store(2, ordering: .releasing)
    }

    /// Each group's figures over a run of `seconds`. Call after `stop()`.
    package func figures(seconds: Double) -> [SubscriberFigures] {
        combined(loops.indices.map(parts), seconds: seconds)
    }

    /// Gives loop `loop`'s part of the figures for `liveFigures`: on that loop, once a second.
    fileprivate func refresh(loop: Int) {
        let parts = parts(onLoop: loop)
        liveParts.withLock { $0[loop] = parts }
    }

    /// Each group's figures as of now, `seconds` into the run, from the parts each loop gave
    /// in the last second: read without waiting for a loop, so a busy one never holds up the
    /// HTTP server that asks.
    package func liveFigures(seconds: Double) -> [SubscriberFigures] {
        switch phase.load(ordering: .acquiring) {
        case 0: combined([], seconds: seconds)
        case 2: figures(seconds: seconds)
        default: combined(liveParts.withLock { $0 }, seconds: seconds)
        }
    }

    /// Every group's part on loop `loop`, its members there and their tally: on that loop, or
    /// once the loops have stopped.
    private func parts(onLoop loop: Int) -> [SubscriberFigures] {
        var parts = plans.map { SubscriberFigures(name: $0.name, shared: $0.isShared) }
        for member in membersByLoop[loop].value {
            parts[member.group].connections += 1
            if member.everSubscribed { parts[member.group].subscribed += 1 }
            parts[member.group].received += member.received
            if member.received > 0 { parts[member.group].connectionsReceiving += 1 }
        }
        for (group, plan) in plans.enumerated() {
            var latency = Histogram()
            var outOfOrder = 0
            for (tallyLoop, tally) in tallies[group] where tallyLoop == loop {
                latency.merge(tally.value.latency)
                for table in tally.value.streams {
                    for stream in table.streams {
                        parts[group].duplicates += stream.duplicated
                        outOfOrder += stream.outOfOrder
                        parts[group].gaps += stream.gaps
                    }
                }
            }
            // A shared group's members read on one loop, in the order it finds them ready.
            if !plan.isShared { parts[group].outOfOrder = outOfOrder }
            parts[group].histogram = HistogramData(latency)
        }
        return parts
    }

    /// The loops' parts added up, group by group (a loop that has given none yet adds none).
    private func combined(_ loopParts: [[SubscriberFigures]], seconds: Double) -> [SubscriberFigures] {
        plans.enumerated().map { group, plan in
            var figures = loopParts.filter { group < $0.count }.map { $0[group] }
                .reduce(SubscriberFigures(name: plan.name, shared: plan.isShared, histogram: HistogramData(Histogram()))) { $0.beside($1) }
            figures.ratePerSecond = seconds > 0 ? (Double(figures.received) / seconds * 100).rounded() / 100 : 0
            return figures
        }
    }

    /// Logs `problem` of a connection of `group`, unless the group has said enough already.
    func warn(group: Int, _ problem: String) {
        let said = warnings.withLock { counts in
            counts[group] += 1
            return counts[group]
        }
        guard said <= Self.warningsPerGroup else { return }
        let more = said == Self.warningsPerGroup ? " (further problems of this group are not logged)" : ""
        logger.warning("subscriber group '\(plans[group].name)': \(problem)\(more)")
    }
}

/// A loop's timer that has the subscribers refresh its loop's part of their figures at once and
/// then once a second, until the loop stops. Made before the loop runs, its loop's after.
private final class LiveRefresh: TimerTarget {
    let timer: Timer
    /// The loop's place in `Subscribers.loops`.
    private let index: Int
    unowned(unsafe) var subscribers: Subscribers!

    init(loop: EventLoop, index: Int) {
        timer = Timer(on: loop)
        self.index = index
        timer.target = self
    }

    func timerFired(_ timer: Timer, now: UInt64) {
        subscribers.refresh(loop: index)
        timer.schedule(at: now &+ 1_000_000_000)
    }
}
