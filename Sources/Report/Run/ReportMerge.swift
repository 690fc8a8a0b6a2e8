import Signals

/// `devsim report merge`: shard reports added up into the report of the whole fleet.
public enum ReportMerge {
    /// One report to merge and where it came from, for messages.
    public struct Input: Sendable {
        public var name: String
        public var report: RunReport

        public init(name: String, report: RunReport) {
            self.name = name
            self.report = report
        }
    }

    public struct Merged: Sendable {
        public var report: RunReport
        /// What the inputs disagree on without making the sum wrong: different seeds or
        /// scenarios, shards missing or given twice, figures that cannot be merged.
        public var warnings: [String]
    }

    /// Adds up `inputs`: every count summed (groups and subscriber groups by name, connection errors by reason, `neverConnected`,
    /// faults, `--verify` counts), `durationSeconds` the longest, `ratePerSecond` the summed
    /// `published` over it, `allConnectedSeconds` the latest (absent if one shard never had all
    /// its connections), `latency`/`lateness` and `connectTimings` made from the sum of the raw
    /// histograms, and the `timeline`s lined up by wall-clock time (`Timeline.merged`). The
    /// merged report names no shard and carries no `--expect` verdicts (each shard judged its
    /// own); its `verify.e2eLatency` is dropped when several reports have one, since the report
    /// does not keep that histogram. Throws, naming the input, when one has no raw histograms
    /// or they do not decode, and, unless `force`, when one of several is not a shard's: runs
    /// that were not side by side would add up to a rate and percentiles that never happened.
    public static func merge(_ inputs: [Input], force: Bool = false) throws(ReportMergeError) -> Merged {
        guard let first = inputs.first else { throw ReportMergeError(file: nil, "no reports to merge") }
        var warnings: [String] = []
        if inputs.count > 1, let whole = inputs.first(where: { $0.report.shard == nil }) {
            guard force else {
                throw ReportMergeError(
                    file: whole.name,
                    "is the report of a whole run, not of a shard (run --shard K/N): runs that were not side by side "
                        + "would add up to a rate that never happened; --force merges them anyway")
            }
            warnings.append("merged with --force: not every report is a shard's, so the rate and percentiles are of no one run")
        }
        var latency = Histogram(), lateness = Histogram(), connectTimings = ConnectTimings()
        for input in inputs {
            guard let histograms = input.report.histograms else {
                throw ReportMergeError(
                    file: input.name,
                    "has no raw histograms (\"histograms\"), so its percentiles cannot be "
                        + "merged; it was written by a devsim before 'report merge'")
            }
            do throws(HistogramDataError) {
                latency.merge(try histograms.latency.histogram())
                lateness.merge(try histograms.lateness.histogram())
                if let phases = histograms.connectTimings { connectTimings.merge(try ConnectTimings(phases)) }
            } catch {
                throw ReportMergeError(file: input.name, "histograms: \(error.message)")
            }
        }

        var merged = first.report
        let reports = inputs.map(\.report)
        func sum(_ figure: KeyPath<RunReport.Details, Int>) -> Int { reports.reduce(0) { $0 + $1.details[keyPath: figure] } }
        merged.scenarios = reports.flatMap(\.scenarios).uniqued()
        merged.outcome = reports.map(\.outcome).uniqued().joined(separator: ", ")
        merged.figures = reports.reduce(Figures()) { $0 + $1.figures }
        merged.connectionsUp = sum(\.connectionsUp)
        merged.connections = sum(\.connections)
        merged.durationSeconds = reports.map(\.durationSeconds).max() ?? 0
        merged.ratePerSecond =
            merged.durationSeconds > 0
            ? (Double(merged[.published]) / merged.durationSeconds * 100).rounded() / 100 : 0
        merged.faults = reports.reduce(FaultCounts()) { $0 + $1.faults }
        let commands = reports.compactMap(\.commands)
        merged.commands = commands.isEmpty ? nil : commands.reduce(CommandCounts(), +)
        // Percentiles do not add up; the shards' reports keep theirs.
        merged.commandLatency = nil
        merged.commandSubscribeLatency = nil
        merged.latency = latency.isEmpty ? nil : Percentiles(latency)
        merged.lateness = Percentiles(lateness)
        merged.histograms = ReportHistograms(latency: latency, lateness: lateness)
        merged.withConnectTimings(connectTimings)
        merged.groups = mergeGroups(reports.flatMap(\.groups))
        merged.subscribers = mergeSubscribers(reports.flatMap { $0.subscribers ?? [] })
        let hosts = HostFigures.merge(reports.flatMap { $0.hosts ?? [] })
        merged.hosts = hosts.isEmpty ? nil : hosts
        merged.connectionErrors = reports.reduce(into: [:]) { total, report in
            total.merge(report.connectionErrors, uniquingKeysWith: +)
        }
        let named = reports.reduce(into: [String: String]()) { named, report in
            named.merge(report.connectionErrorsFirst ?? [:]) { earlier, _ in earlier }
        }
        merged.connectionErrorsFirst = named.isEmpty ? nil : named
        let refusals = reports.compactMap(\.refusals).reduce(Refusals(), +)
        merged.refusals = refusals.isEmpty ? nil : refusals
        let connected = reports.map(\.allConnectedSeconds)
        merged.allConnectedSeconds = connected.contains(where: { $0 == nil }) ? nil : connected.compactMap { $0 }.max()
        let neverConnected = reports.reduce(0) { $0 + ($1.neverConnected ?? 0) }
        merged.neverConnected = neverConnected > 0 ? neverConnected : nil
        merged.verify = mergeVerify(reports.compactMap(\.verify), warnings: &warnings)
        if merged.verify != nil, reports.contains(where: { $0.verify == nil }) {
            warnings.append("only some reports ran --verify; the verify figures are theirs alone")
        }
        merged.expectations = nil
        merged.shard = nil
        // Stage by stage: the shards ran the same profile side by side.
        var stages: [Int: StageFigures] = [:]
        for stage in reports.flatMap({ $0.stages ?? [] }) {
            if var sum = stages[stage.stage] {
                sum.point = sum.point.beside(stage.point)
                if let recovery = stage.recovery {
                    sum.recovery = sum.recovery.map { $0.beside(recovery) } ?? recovery
                    if !warnings.contains(StageRecovery.mergeWarning) { warnings.append(StageRecovery.mergeWarning) }
                }
                stages[stage.stage] = sum
            } else {
                stages[stage.stage] = stage
            }
        }
        merged.stages = stages.isEmpty ? nil : stages.keys.sorted().map { stages[$0]! }
        let timelines = reports.compactMap(\.timeline)
        merged.timeline = Timeline.merged(timelines)
        // A shard without devices ran nothing to chart.
        if !timelines.isEmpty, timelines.count < reports.count(where: { $0.outcome != RunReport.emptyShardOutcome }) {
            warnings.append("only some reports have a timeline; the merged timeline is theirs alone")
        }

        let seeds = reports.map(\.seed).uniqued()
        if seeds.count > 1 {
            warnings.append(
                "the reports have different seeds (\(seeds.map(String.init).joined(separator: ", "))); "
                    + "the merged report records \(merged.seed), the first")
        }
        let scenarioSets = reports.map { $0.scenarios.sorted() }.uniqued()
        if scenarioSets.count > 1 {
            warnings.append(
                "the reports ran different scenarios (" + scenarioSets.map { $0.joined(separator: "+") }.joined(separator: ", ")
                    + "); they are added up all the same")
        }
        warnings += shardWarnings(inputs)
        return Merged(report: merged, warnings: warnings)
    }

    /// Groups of the same name added up, in the order they are first met.
    private static func mergeGroups(_ groups: [GroupFigures]) -> [GroupFigures] {
        byName(groups, name: \.name) { sum, group in
            if let commands = group.commands { sum.commands = (sum.commands ?? CommandCounts()) + commands }
            if let stages = group.stages { sum.stages = GroupStageFigures.merged((sum.stages ?? []) + stages) }
            if let refusals = group.refusals { sum.refusals = (sum.refusals ?? Refusals()) + refusals }
            sum.figures += group.figures
        }
    }

    /// Subscriber groups of the same name added up (`SubscriberFigures.beside`), in the order
    /// they are first met; `nil` when no report has any. A shared group's members in different
    /// shards cannot see each other's messages: its duplicates are each shard's own.
    private static func mergeSubscribers(_ groups: [SubscriberFigures]) -> [SubscriberFigures]? {
        groups.isEmpty ? nil : byName(groups, name: \.name) { sum, group in sum = sum.beside(group) }
    }

    /// `items` with those of the same name added into the first of them by `add`, in the order
    /// their names are first met.
    private static func byName<Item>(_ items: [Item], name: KeyPath<Item, String>, add: (inout Item, Item) -> Void) -> [Item] {
        var merged: [Item] = []
        var place: [String: Int] = [:]
        for item in items {
            if let index = place[item[keyPath: name]] {
                add(&merged[index], item)
            } else {
                place[item[keyPath: name]] = merged.count
                merged.append(item)
            }
        }
        return merged
    }

    private static func mergeVerify(_ summaries: [VerifySummary], warnings: inout [String]) -> VerifySummary? {
        guard let first = summaries.first else { return nil }
        guard summaries.count > 1 else { return first }
        if summaries.contains(where: { $0.e2eLatency != nil }) {
            warnings.append(
                "verify.e2eLatency is left out: the reports keep its percentiles, not its histogram, and percentiles cannot be added up")
        }
        var merged = VerifySummary(
            received: summaries.reduce(0) { $0 + $1.received },
            lost: summaries.reduce(0) { $0 + $1.lost },
            duplicated: summaries.reduce(0) { $0 + $1.duplicated },
            outOfOrder: summaries.reduce(0) { $0 + $1.outOfOrder })
        // The shards ran side by side: their rates add up.
        merged.acceptedPerSecond = summaries.reduce(0) { $0 + $1.acceptedPerSecond }
        merged.receivedPerSecond = summaries.reduce(0) { $0 + $1.receivedPerSecond }
        merged.missingWhileConnected = summaries.reduce(0) { $0 + $1.missingWhileConnected }
        merged.fellBehind = summaries.contains(where: \.fellBehind)
        merged.missedWhileAway = summaries.reduce(0) { $0 + $1.missedWhileAway }
        merged.unconfirmed = summaries.reduce(0) { $0 + $1.unconfirmed }
        merged.unwatched = summaries.reduce(0) { $0 + $1.unwatched }
        let unmatched = summaries.compactMap(\.unmatched)
        merged.unmatched = unmatched.isEmpty ? nil : unmatched.reduce(0, +)
        let silent = summaries.compactMap(\.silentTopics)
        merged.silentTopics = silent.isEmpty ? nil : silent.reduce(0, +)
        // A shard's check that judged nothing leaves the whole unjudged.
        merged.invalid = summaries.lazy.compactMap(\.invalid).first
        return merged
    }

    /// Shards given twice, of different counts, or missing from a complete set.
    private static func shardWarnings(_ inputs: [Input]) -> [String] {
        let sharded = inputs.compactMap { input in input.report.shard.map { (input.name, $0) } }
        guard !sharded.isEmpty else { return [] }
        var warnings: [String] = []
        if sharded.count < inputs.count {
            warnings.append("some reports are of a shard and some of a whole fleet")
        }
        var seen: [Shard: String] = [:]
        for (name, shard) in sharded {
            if let other = seen[shard] {
                warnings.append("\(name) and \(other) are both shard \(shard); its devices are counted twice")
            }
            seen[shard] = name
        }
        let counts = sharded.map(\.1.count).uniqued()
        if counts.count > 1 {
            warnings.append(
                "the reports are shards of different counts (\(counts.map(String.init).joined(separator: ", "))); "
                    + "their devices may overlap or be missing")
        } else if let count = counts.first {
            let missing = (0..<count).filter { index in !sharded.contains { $0.1.index == index } }
            if !missing.isEmpty, missing.count <= 10 {
                warnings.append(
                    "shard\(missing.count == 1 ? "" : "s") " + missing.map { "\($0)/\(count)" }.joined(separator: ", ")
                        + " missing: the merged report is not the whole fleet's")
            } else if !missing.isEmpty {
                warnings.append("\(missing.count) of \(count) shards missing: the merged report is not the whole fleet's")
            }
        }
        return warnings
    }
}

private extension Array where Element: Hashable {
    /// The elements in order, each once.
    func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
