import Glibc
import Dispatch
import Reactor
import Report
import Scenario
import Synchronization

/// A run of the whole fleet: the event loops, their connections and devices, and the thread that
/// waits for the run's end (its duration, its message count, a stop request, or no broker at all)
/// and then winds it down: no new ticks, a bounded drain of unacknowledged messages, DISCONNECT.
public final class Fleet: Sendable {
    /// What the service shows while the run goes on (`live()`): each loop's histograms as of
    /// its last probe, and which probes wait for an answer. Brought up to date once a second by
    /// the thread that waits for the run's end.
    let liveState: Locked<LiveState>

    struct LiveState {
        var latency: [Histogram]
        var lateness: [Histogram]
        var connectTimings: [ConnectTimings]
        /// Per loop, each group's latest sampled payload.
        var samples: [[String?]]
        /// Per loop, since when a probe has waited for its answer; 0 when none waits.
        var unansweredSince: [UInt64]
        var start: UInt64 = 0
    }

    /// The fleet as of now, for the service.
    public struct Live: Sendable {
        public var result: RunResult
        /// The loops that have not answered a probe for over `probeLimit`: a stuck loop.
        public var stuckLoops: [String]
        /// Each group's latest payload seen by the probes, by group name.
        public var latestPayloads: [String: String] = [:]
        /// The subscriber groups' connections, and those up now.
        public var subscriberConnections = 0
        public var subscriberConnectionsUp = 0
        /// The stage under way, the capacity search's step, and the rate they aim at.
        public var position = RunPosition()

        /// What readiness (`/readyz`, systemd's `READY=1`) judges: the devices' connections up
        /// of those not paused or out on purpose, which a command or the stages took down as
        /// asked; for a run of subscribers alone, theirs.
        public var readiness: Readiness {
            guard result.connections == 0, subscriberConnections > 0 else {
                let paused = result.totals.connectionsPaused
                return Readiness(
                    up: result.totals.connectionsUp, wanted: result.connections - paused, all: result.connections, paused: paused)
            }
            return Readiness(up: subscriberConnectionsUp, wanted: subscriberConnections, all: subscriberConnections, paused: 0)
        }
    }

    /// How long a loop may take to answer a probe before it counts as stuck.
    public static let probeLimit: UInt64 = 1_000_000_000

    let settings: RunSettings
    let control: RunControl
    /// Each loop's context: opened on its loop, or before the loops start and after they stop.
    let contexts: [LoopBound<LoopContext>]
    /// The groups and their connections, as commands and reloads change them.
    let roster: FleetRoster
    let verifier: Verifier?
    /// The subscriber groups' connections, on loops of their own; `nil` without any.
    let subscribers: Subscribers?
    /// What the subscriber groups were made from, for a reload to tell whether they changed.
    let subscriberGroups: [SubscriberGroupPlan.Source]
    /// The connections of the scenarios' control topics, on the first loop.
    let controls: LoopBound<[ControlConnection]>
    /// The timeline, the stages' figures and the capacity search so far, read by the thread
    /// that waits for the run's end.
    let tracking = Locked<Tracking>(Tracking())
    let stages: [Stage]
    /// The groups with stages of their own, by index and name, and their stages.
    let groupProfiles: [(group: Int, name: String, stages: [Stage])]

    struct Tracking {
        var timeline: TimelineTracker?
        var stages: StageTracker?
        /// Those of `groupProfiles`, in its order.
        var groupStages: [StageTracker] = []
        var capacity: CapacityStepper?

        /// When the next reading is due for any of them but the capacity search.
        var due: UInt64? { ([timeline?.due, stages?.due] + groupStages.map(\.due)).compactMap { $0 }.min() }
    }
    /// The stages whose `disconnect: all` has been carried out (0-based).
    let droppedStages = Locked<Set<Int>>([])
    /// Seconds from the start to the first connection's open: a fleet that `devices` stages
    /// grow from none has the connect timeout from then.
    let firstOpen: Double
    /// During a capacity search, the machine's own scheduling delay, for each step's headroom.
    let probe: SchedulingProbe?
    let cores = CPUTime.usableCores

    /// Builds every connection (nothing is opened yet). Throws `ClientSetupError` when
    /// libmosquitto refuses a client's options, for example a TLS file it cannot read.
    public init(plan: FleetPlan, settings: RunSettings, logger: Logger) throws {
        self.settings = settings
        control = RunControl(messages: settings.messages, retriesRefusedCredentials: settings.retryRefused, logger: logger)
        let loopCount = max(1, min(settings.loops, plan.connections.count))
        let perConnection = DeviceConnection.descriptorsPerConnection
        // A subscriber's connection costs what a device's does, and its loops theirs.
        let subscriberLoops = min(settings.loops, plan.subscriberConnectionCount)
        // Before the descriptors: adding source addresses does not change how many are needed.
        try PortLimit.check(plan, settings: settings)
        try DescriptorLimit.raise(
            toFit: DescriptorLimit.needed(
                connections: plan.connections.count + plan.subscriberConnectionCount, perConnection: perConnection,
                loops: loopCount + subscriberLoops), perConnection: perConnection)
        var contexts: [LoopBound<LoopContext>] = []
        for index in 0..<loopCount {
            let loop = try EventLoop(name: "devsim-loop-\(index)", logger: logger)
            contexts.append(LoopBound(LoopContext(loop: loop, control: control, groups: plan.groups.count), on: loop))
        }
        plan.prepareTLSContexts()
        let roster = try FleetRoster(plan: plan, contexts: contexts, control: control, settings: settings)
        self.roster = roster
        self.contexts = contexts
        stages = plan.stages
        // The plan's groups are the scenarios', in order.
        groupProfiles = plan.scenarios.flatMap(\.groups).enumerated().compactMap { index, group in
            group.stages.isEmpty ? nil : (index, group.name, group.stages)
        }
        firstOpen = plan.connections.map(\.startOffset).min() ?? 0
        probe = settings.capacity == nil ? nil : SchedulingProbe()
        liveState = Locked(
            LiveState(
                latency: Array(repeating: Histogram(), count: contexts.count),
                lateness: Array(repeating: Histogram(), count: contexts.count),
                connectTimings: Array(repeating: ConnectTimings(), count: contexts.count),
                samples: Array(repeating: [], count: contexts.count),
                unansweredSince: Array(repeating: 0, count: contexts.count)))
        let verifier = settings.verify ? try Verifier(plan: plan, loops: settings.loops, logger: logger) : nil
        if let verifier {
            let countsLoss = settings.capacity?.countsLoss == true
            for connection in contexts.flatMap(\.value.connections) {
                // A Sparkplug edge node's messages are verified by the node, its devices' with them.
                if let sparkplug = connection.role(SparkplugEdgeNodeRole.self)?.sequencer, let node = connection.plan.sparkplug {
                    sparkplug.verifierPresence = verifier.presence(of: connection.plan, topic: node.topic.nodeFilter)
                    sparkplug.verifier = verifier
                    continue
                }
                for device in connection.devices {
                    device.verifierPresence = verifier.presence(of: connection.plan, topic: device.plan.topic)
                    if countsLoss { device.stepWindow = verifier.stepWindow(of: connection.plan, topic: device.plan.topic) }
                }
            }
        }
        self.verifier = verifier
        subscribers =
            plan.subscribers.isEmpty
            ? nil : try Subscribers(plans: plan.subscribers, loops: settings.loops, connackTimeout: settings.connackTimeout, logger: logger)
        subscriberGroups = plan.subscribers.map(\.source)
        let controls = try plan.controls.map { plan in
            try ControlConnection(
                topic: plan.topic, options: plan.options, reconnect: plan.reconnect, loop: contexts[0].loop, logger: logger
            ) { command, group throws(GroupCommandError) in try roster.perform(command, group: group) }
        }
        self.controls = LoopBound(controls, on: contexts[0].loop)
    }

    /// The devices and connections refer to each other and to their loop's context, for the
    /// publish path: here, when nothing runs any more, the references are let go.
    deinit {
        for context in contexts.map(\.value) {
            for connection in context.connections + context.retired { connection.dismantle() }
            context.connections.removeAll()
            context.retired.removeAll()
        }
    }

    /// Why the fleet cannot be reloaded to `plan`: its load profiles would change (see
    /// `FleetPlan.profileChange`); `nil` when they stay.
    public func profileChange(to plan: FleetPlan) -> String? { roster.plan.profileChange(to: plan) }

    /// The device groups, in the report's order, removed ones too.
    public var groups: [String] { roster.groupNames }

    /// Carries out `command` on every connection of `group` (see `GroupCommand`): pause (the
    /// seed's phone going to the background: ticks count as `paused`, connections leave
    /// cleanly), resume, a new rate, or a new device count. Returns how many connections the
    /// group has. Any thread.
    public func perform(_ command: GroupCommand, group: String) throws(GroupCommandError) -> Int {
        if isSearching {
            // A new rate or new devices would not be at the step's rate, a pause not at any,
            // and the step's target would be wrong.
            throw GroupCommandError("a capacity search sets every device's rate: \(command.name) is refused while it runs")
        }
        return try roster.perform(command, group: group)
    }

    /// Whether the run has connected: a device's connection, or for a run of subscribers alone,
    /// a subscriber's.
    var hasEverConnected: Bool {
        roster.connectionCount == 0 ? subscribers?.everConnected.load(ordering: .relaxed) ?? false : control.hasEverConnected
    }

    /// Why nothing connected, when no attempt had failed yet: no CONNACK came. A broker of MQTT
    /// 3 only may leave an MQTT 5 CONNECT unanswered (amqtt 0.12): said where one was reached.
    var noConnack: String {
        let speaksMQTT5 = roster.plan.connections.first?.options.protocolVersion == .v5
        let unanswered = speaksMQTT5 && sumOverConnections { $0.awaitsAnswerOfBroker ? 1 : 0 }.sum > 0
        return "no CONNACK from the broker" + (unanswered ? AttemptFailure.mqtt5Hint : "")
    }

    /// Whether a capacity search (`settings.capacity`) is under way.
    var isSearching: Bool { tracking.withLock { $0.capacity.map { $0.due != nil || $0.isConnecting } ?? false } }

    /// `observer` hears of every command carried out, from HTTP or a control topic, with the
    /// group's connection count; on the thread that carried it out.
    public func observeCommands(_ observer: @escaping @Sendable (GroupCommand, String, Int) -> Void) {
        control.commandObserver.withLock { $0 = observer }
    }

    /// Applies `plan`, made from the scenario files read again (SIGHUP), to the running fleet:
    /// new groups start, removed ones leave cleanly, changed ones restart, and the connections
    /// of the others are not touched. Counters carry over; the report lists the reload. Any
    /// thread.
    @discardableResult
    public func reload(to plan: FleetPlan) -> Reload {
        if isSearching {
            return reloadFailed("a capacity search sets every device's rate: a reload would change what it measures; restart the run")
        }
        if plan.subscribers.map(\.source) != subscriberGroups {
            // Their connections and counts are the run's from its start: a reload changes the devices only.
            control.logger.warning("the subscriber groups changed, and a reload leaves them as they were; restart the run to change them")
        }
        return roster.reload(to: plan, at: secondsSinceStart)
    }

    /// A reload whose files did not load: the fleet runs on as it is, and the report says why.
    @discardableResult
    public func reloadFailed(_ error: String) -> Reload {
        roster.reloadFailed(error, at: secondsSinceStart)
    }

    var secondsSinceStart: Double {
        let start = liveState.withLock { $0.start }
        return start == 0 ? 0 : Double(MonotonicClock.now() &- start) / 1e9
    }

    /// Asks the run to end gracefully; callable from any thread (a signal handler's queue).
    public func requestStop() {
        control.stop(.requested)
    }

    /// The figures so far.
    public var totals: Totals { roster.totals }

    /// The closed-loop check's figures per topic (with `settings.verify`); complete once `run`
    /// has returned.
    package var verifiedTopics: [Verifier.Stream] { verifier?.topics ?? [] }

    /// Runs the fleet on the calling thread's watch until the run ends, then winds it down.
    public func run() throws -> RunResult {
        let began = MonotonicClock.now()
        try probe?.start()
        defer { probe?.stop() }
        // Subscribed before any device connects, so that its first message is seen.
        try verifier?.start(until: began &+ MonotonicClock.nanoseconds(min(settings.connectTimeout, .seconds(5))))
        // Until a broker answers, the connect timeout counts from here: waiting for the
        // verifier is part of it, not added to it. Once one has, the devices have it all.
        var clock = verifier?.brokerAnswered == false ? began : MonotonicClock.now()
        // The subscriber groups too, so that they receive the devices' first messages.
        let waited = Duration.nanoseconds(Int64(MonotonicClock.now() &- clock))
        try subscribers?.start(timeout: min(max(.zero, settings.connectTimeout - waited), Subscribers.subscribeWait))
        let start = MonotonicClock.now()
        if subscribers?.everConnected.load(ordering: .relaxed) == true { clock = start }
        liveState.withLock { $0.start = start }
        control.start(at: start)
        let startedAt = WallTime.now().secondsSinceEpoch
        tracking.withLock { [stages, groupProfiles, settings] tracking in
            tracking.timeline = settings.timelineInterval.map {
                TimelineTracker(interval: max(1_000_000, MonotonicClock.nanoseconds($0)), start: start, startedAt: startedAt)
            }
            tracking.stages = stages.isEmpty ? nil : StageTracker(stages: stages, start: start)
            tracking.groupStages = groupProfiles.map { StageTracker(stages: $0.stages, start: start) }
            tracking.capacity = settings.capacity.map { CapacityStepper(settings: $0, start: start) }
        }
        if let duration = settings.duration { control.end(at: start &+ MonotonicClock.nanoseconds(duration)) }
        // The closed-loop check's first second begins before any device can publish, so that
        // what the broker drops of the very first messages is judged too.
        verifier?.notePace(Totals(), publisherChanges: 0)
        roster.begin()
        for context in contexts {
            try context.loop.start()
            context.execute { context in
                for connection in context.connections {
                    connection.open(at: start &+ MonotonicClock.nanoseconds(connection.plan.startOffset))
                }
            }
        }
        controls.execute { controls in for control in controls { control.open() } }
        if let stall = settings.stallFirstLoop, let first = contexts.first {
            let logger = control.logger
            DispatchQueue.global().asyncAfter(deadline: .now() + 1) {
                // A run over within the second has no loop left to stall.
                try? first.loop.submit {
                    // Said, so that a test waits for the stall rather than guessing when it came.
                    logger.info("test hook: event loop \(first.loop.name) blocks for \(formatSeconds(stall))")
                    usleep(UInt32(clamping: MonotonicClock.nanoseconds(stall) / 1000))
                }
            }
        }
        var reason = waitForEnd(start: start, connectClock: clock)
        control.stopTicking()
        roster.close()
        if !hasEverConnected, reason.endedAConnectedRun {
            // A run that never connected tested nothing, however it ended: exit 3, not 0.
            let why = control.lastFailure ?? noConnack
            reason = .noConnection(
                "no connection in the \(formatSeconds(Double(MonotonicClock.now() - start) / 1e9)) "
                    + "the run lasted (\(reason.description)): \(why)")
        }
        // The run's length is its ticking time; the drain and goodbyes after it are not.
        let tickingEnded = MonotonicClock.now()
        let duration = Double(tickingEnded - start) / 1e9
        waitForTicksUnderWay()
        if case .noConnection = reason {} else { drain() }
        let connectionsUpAtEnd = totals.connectionsUp
        let neverConnected = sumOverConnections { $0.tally.attemptHasFailed && !$0.driver.hasConnected ? 1 : 0 }.sum
        let groupsUpAtEnd = roster.groupTotals.map(\.totals.connectionsUp)
        let hostsUpAtEnd = roster.hosts.figures.map(\.connectionsUp)
        disconnectAll()
        logLosses()  // those of the drain and the goodbyes
        verifier?.settle(published: totals[.published])
        subscribers?.settle()
        // The run's last part second, judged once what was in flight has arrived.
        let settled = totals
        verifier?.notePace(settled, publisherChanges: control.losses.load(ordering: .relaxed) + settled[.reconnects])
        verifier?.stop()
        subscribers?.stop()
        for context in contexts { context.loop.stop() }
        // A capacity step whose messages were still awaited is judged on what arrived by the settle.
        var awaited = FigureReading(time: MonotonicClock.now())
        awaited.stepLoss = verifier?.stepLoss
        if let step = tracking.withLock({ $0.capacity?.runEnded(awaited) }) {
            control.logger.log(step.passed ? .info : .warning, step.logLine)
        }
        // The loops have ended: their histograms can be read from here.
        var latency = Histogram(), lateness = Histogram(), commandLatency = Histogram(), subscribeLatency = Histogram()
        var connectTimings = ConnectTimings()
        for context in contexts.map(\.value) {
            connectTimings.merge(context.connectTimings)
            latency.merge(context.latency)
            lateness.merge(context.lateness)
            commandLatency.merge(context.commandLatency)
            subscribeLatency.merge(context.subscribeLatency)
        }
        var result = self.result(
            totals: totals, connectionsUp: connectionsUpAtEnd, seconds: duration, reason: reason, latency: latency,
            lateness: lateness, start: start)
        result.neverConnected = neverConnected
        for (index, up) in hostsUpAtEnd.enumerated() where result.hosts.indices.contains(index) { result.hosts[index].connectionsUp = up }
        // The last point holds the run's last part interval and what the drain settled, so
        // the points add up to the totals; it ends where the ticking did, as the run's length
        // does, and its connections are those up then, before the goodbyes.
        var final = totals
        final.connectionsUp = connectionsUpAtEnd
        var reading = FigureReading(
            time: tickingEnded, totals: final, errors: errorCount(final), latency: latency, lateness: lateness)
        // With what the subscribers received in the settle after the ticking, as the totals
        // hold what the drain settled.
        reading.received = subscribers?.receivedCount.load(ordering: .relaxed) ?? 0
        let groupReadings = groupReadings(at: tickingEnded, connectionsUp: groupsUpAtEnd)
        tracking.withLock { [groupProfiles] tracking in
            tracking.timeline?.record(reading)
            tracking.stages?.record(reading, final: true)
            result.timeline = tracking.timeline?.timeline
            result.stages = tracking.stages?.figures ?? []
            for (index, profile) in groupProfiles.enumerated() {
                tracking.groupStages[index].record(groupReadings[index], final: true)
                result.groupStages[profile.group] = tracking.groupStages[index].figures
            }
            result.capacity = tracking.capacity?.figures
        }
        let recoveries = control.recoveries.withLock { $0 }
        for index in result.stages.indices {
            guard let recovery = recoveries[result.stages[index].stage] else { continue }
            result.stages[index].recovery = StageRecovery(dropped: recovery.dropped, back: recovery.back)
        }
        result.commandLatency = commandLatency
        result.connectTimings = connectTimings
        result.subscribers = subscribers?.figures(seconds: duration) ?? []
        result.subscribeLatency = subscribeLatency
        if let verifier {
            result.verify = verifier.summary(
                published: contexts.flatMap(\.value.connections).flatMap { connection in
                    if let sparkplug = connection.role(SparkplugEdgeNodeRole.self)?.sequencer, let node = connection.plan.sparkplug {
                        // QoS 0: the broker refuses none, and acknowledges none.
                        return [
                            Verifier.Publication(
                                connection: connection.plan, topic: node.topic.nodeFilter, count: sparkplug.published,
                                whileAway: sparkplug.publishedWhileVerifierAway)
                        ]
                    }
                    let unacknowledged = connection.telemetry.unacknowledgedBySender
                    return connection.devices.map {
                        Verifier.Publication(
                            connection: connection.plan, topic: $0.plan.topic, count: $0.published - $0.refused,
                            whileAway: $0.publishedWhileVerifierAway, unwatched: $0.publishedUnwatched,
                            unacknowledged: unacknowledged[ObjectIdentifier($0)] ?? 0)
                    }
                })
        }
        return result
    }
}
