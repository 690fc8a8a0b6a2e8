import Reactor
import Report

/// The run's figures: as of now for the service, the readings the timeline, the
/// stages and the capacity search take, and the one result they all make.
extension Fleet {
    /// The run as of now: its figures, each group's, and the histograms as of the last probe.
    public func live() -> Live {
        let now = MonotonicClock.now()
        let state = liveState.withLock { $0 }
        var latency = Histogram(), lateness = Histogram()
        for histogram in state.latency { latency.merge(histogram) }
        for histogram in state.lateness { lateness.merge(histogram) }
        let totals = self.totals
        var result = self.result(
            totals: totals, connectionsUp: totals.connectionsUp, seconds: state.start == 0 ? 0 : Double(now &- state.start) / 1e9,
            reason: .running, latency: latency, lateness: lateness, start: state.start)
        for timings in state.connectTimings { result.connectTimings.merge(timings) }
        let stuck = contexts.indices.filter { index in
            let since = state.unansweredSince[index]
            return since != 0 && now &- since > Self.probeLimit
        }
        var payloads: [String: String] = [:]
        let groupNames = roster.groupNames
        for loopSamples in state.samples {
            for (index, sample) in loopSamples.enumerated() where index < groupNames.count {
                if let sample { payloads[groupNames[index]] = sample }
            }
        }
        result.subscribers = subscribers?.liveFigures(seconds: result.durationSeconds) ?? []
        var live = Live(result: result, stuckLoops: stuck.map { contexts[$0].loop.name }, latestPayloads: payloads)
        live.subscriberConnections = subscribers?.connectionCount ?? 0
        live.subscriberConnectionsUp = subscribers?.connectionsUp.load(ordering: .relaxed) ?? 0
        live.position = position(at: now, seconds: result.durationSeconds)
        return live
    }

    /// The run's result as of now, its end's or the live view's: the one place it is made, so
    /// the report and the service read the same figures.
    func result(
        totals: Totals, connectionsUp: Int, seconds: Double, reason: StopReason, latency: Histogram, lateness: Histogram,
        start: UInt64
    ) -> RunResult {
        let allConnected = control.allConnectedAt.load(ordering: .relaxed)
        var result = RunResult(
            totals: totals, connectionsUpAtEnd: connectionsUp, connections: roster.connectionCount, durationSeconds: seconds,
            reason: reason, latency: latency, lateness: lateness, groups: roster.groupTotals, connectionErrors: control.connectionErrors,
            allConnectedSeconds: allConnected == 0 ? nil : Double(allConnected &- start) / 1e9)
        result.reloads = roster.reloads
        result.connectionErrorsFirst = control.connectionErrorsFirst
        result.hosts = roster.hosts.figures
        result.commandGroups = roster.commandGroups
        return result
    }

    /// The stages and the capacity step under way at `now`, from their tracking: what the
    /// status lines, `/metrics` and the live page say.
    func position(at now: UInt64, seconds: Double) -> RunPosition {
        let (stage, groupStages, step, base) = tracking.withLock { [groupProfiles] tracking in
            (
                tracking.stages?.position(at: now),
                zip(groupProfiles, tracking.groupStages).map { profile, tracker in
                    var stage = tracker.position(at: now)
                    stage.group = profile.name
                    return stage
                },
                tracking.capacity?.position, tracking.capacity?.baseRatePerSecond
            )
        }
        return RunPosition(
            stages: (stage.map { [$0] } ?? []) + groupStages, step: step, capacityBase: base, plan: roster.plan, seconds: seconds)
    }

    /// The acknowledgement latencies and the lateness so far, each loop's copied on its own
    /// thread into the live state, which the probes keep too.
    func liveHistograms() -> (latency: Histogram, lateness: Histogram) {
        onEveryLoop { [liveState] index, context in
            let latency = context.latency, lateness = context.lateness
            liveState.withLock {
                $0.latency[index] = latency
                $0.lateness[index] = lateness
            }
        }
        // A loop too busy to answer in time counts with its last copy, so a reading never
        // goes back. A loop runs its jobs in order, so a later copy is never an older one.
        return liveState.withLock { state in
            var merged = (latency: Histogram(), lateness: Histogram())
            for histogram in state.latency { merged.latency.merge(histogram) }
            for histogram in state.lateness { merged.lateness.merge(histogram) }
            return merged
        }
    }

    /// Connection problems and failed messages so far: the status line's and the timeline's
    /// errors.
    func errorCount(_ totals: Totals) -> Int {
        control.connectionErrors.values.reduce(0, +) + totals[.failed]
    }

    /// Takes the timeline's next point, and closes a stage, when due; returns when the next
    /// of those is.
    func record(now: UInt64) -> UInt64? {
        guard let due = tracking.withLock({ $0.due }) else { return nil }
        guard now >= due else { return due }
        let reading = reading(now: now)
        let groupReadings = groupProfiles.isEmpty ? [] : groupReadings(at: now)
        let (next, before, after) = tracking.withLock { tracking in
            let before = tracking.stages?.figures.count ?? 0
            if let due = tracking.timeline?.due, now >= due { tracking.timeline?.record(reading) }
            tracking.stages?.record(reading)
            for index in tracking.groupStages.indices { tracking.groupStages[index].record(groupReadings[index]) }
            return (tracking.due, before, tracking.stages?.figures.count ?? 0)
        }
        // The stages that began since the last reading: the one now under way drops its
        // connections; one already over when the reading came (a stalled loop held it back)
        // is too late to, and says so.
        for stage in (before + 1)..<(after + 1) where stage < stages.count && stages[stage].disconnectsAll {
            guard droppedStages.withLock({ $0.insert(stage).inserted }) else { continue }
            if stage == after {
                dropEveryConnection(stage: stage + 1)
            } else {
                control.logger.warning("stage \(stage + 1) was over before its disconnect: all could be carried out: the run was held up")
            }
        }
        return next
    }

    /// The run's figures as of `now`. A message published between two readings is counted in
    /// the first's span and timed in the next's; over the run, both add up exactly.
    func reading(now: UInt64) -> FigureReading {
        let totals = self.totals
        let histograms = liveHistograms()
        var reading = FigureReading(
            time: now, totals: totals, errors: errorCount(totals), latency: histograms.latency, lateness: histograms.lateness)
        reading.received = subscribers?.receivedCount.load(ordering: .relaxed) ?? 0
        if let probe {
            reading.load = GeneratorLoad(
                time: now, cores: cores, loopsCPU: contexts.map(\.loop.cpuNanoseconds), processCPU: CPUTime.process(),
                machine: CPUTime.machine(), schedulingDelay: probe.histogram)
        }
        return reading
    }

    /// The counts of each group of `groupProfiles` as of `time`, for its stages; with
    /// `connectionsUp`, every group's connections up then, in the place of those up now.
    func groupReadings(at time: UInt64, connectionsUp: [Int]? = nil) -> [FigureReading] {
        let groups = roster.groupTotals
        return groupProfiles.map { profile in
            var totals = groups[profile.group].totals
            if let connectionsUp { totals.connectionsUp = connectionsUp[profile.group] }
            return FigureReading(time: time, totals: totals)
        }
    }
}
