import FoundationEssentials

/// The `--report` JSON written when a run ends: its counted `figures` (see `Figure`) and its
/// `details`, side by side at the top level of one object. Every tick is in exactly one of
/// `published`, `skippedOffline`, `buffered`, `droppedBuffer` and `failed`, so `scheduled` is
/// their sum. `report[.published]` reads a figure, `report.seed` a detail.
@dynamicMemberLookup
public struct RunReport: Codable, Sendable, Equatable {
    public var figures: Figures
    package var details: Details

    public subscript(figure: Figure) -> Int {
        get { figures[figure] }
        set { figures[figure] = newValue }
    }

    public subscript<Value>(dynamicMember detail: WritableKeyPath<Details, Value>) -> Value {
        get { details[keyPath: detail] }
        set { details[keyPath: detail] = newValue }
    }

    public init(from decoder: any Decoder) throws {
        figures = try Figures(from: decoder)
        details = try Details(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try figures.encode(to: encoder)
        try details.encode(to: encoder)
        var shares = encoder.container(keyedBy: ShareKey.self)
        try shares.encodeIfPresent(ackedPercent, forKey: .ackedPercent)
        try shares.encodeIfPresent(lostPercent, forKey: .lostPercent)
        try shares.encodeIfPresent(droppedOnPurpose, forKey: .droppedOnPurpose)
    }

    /// The shares and sums, written for people and tools that read the report; made from its
    /// figures, so a report read back (or merged) makes them anew rather than reading them.
    private enum ShareKey: String, CodingKey {
        case ackedPercent, lostPercent, droppedOnPurpose
    }

    /// Connections the stages dropped on purpose (`disconnect: all`), each stage's
    /// `recovery.dropped` added up: counted apart from `connectionErrors`, since a reconnect
    /// storm asked for is no error of the broker's. `nil` without such a stage.
    public var droppedOnPurpose: Int? {
        let recoveries = details.stages?.compactMap(\.recovery) ?? []
        return recoveries.isEmpty ? nil : recoveries.reduce(0) { $0 + $1.dropped }
    }

    /// QoS 1/2 messages acknowledged, in percent of those published (acknowledged, refused and
    /// still in flight; QoS 0 messages have no part in it): where a saturated broker shows while
    /// `rate`, handed over on schedule, stays at 100 %, and one that refuses. `nil` when no QoS
    /// 1/2 message was published.
    public var ackedPercent: Double? {
        let sent = self[.acknowledged] + self[.refused] + self[.inFlight]
        return sent > 0 ? Double(self[.acknowledged]) * 100 / Double(sent) : nil
    }

    /// Messages `--verify` found lost, in percent of those published; `nil` without `--verify`,
    /// when it could not do its job, or when nothing was published.
    public var lostPercent: Double? {
        guard let verify = details.verify, verify.invalid == nil, self[.published] > 0 else { return nil }
        return Double(verify.lost) * 100 / Double(self[.published])
    }
}

extension RunReport {
    public init(result: RunResult, scenarios: [String], seed: UInt64) {
        let t = result.totals
        let outcome =
            switch result.reason {
            case .duration: "duration"
            case .messages: "messages"
            case .requested: "stopped"
            case .searched: "capacity search over"
            case .noConnection(let why): "no connection: \(why)"
            case .running: "running"
            }
        figures = t.figures
        details = Details(
            scenarios: scenarios, seed: seed, outcome: outcome,
            connectionsUp: result.connectionsUpAtEnd, connections: result.connections,
            durationSeconds: result.durationSeconds.thousandths,
            ratePerSecond: result.durationSeconds > 0 ? (Double(t[.published]) / result.durationSeconds * 100).rounded() / 100 : 0,
            faults: t.faults,
            latency: result.latency.isEmpty ? nil : Percentiles(result.latency),
            lateness: Percentiles(result.lateness),
            groups: result.groups.enumerated().map { index, group in
                GroupFigures(
                    name: group.name, figures: group.totals.figures,
                    commands: result.commandGroups.contains(group.name) ? group.totals.commands : nil,
                    stages: result.groupStages[index]?.map(GroupStageFigures.init),
                    refusals: group.totals.refusals.isEmpty ? nil : group.totals.refusals)
            },
            connectionErrors: result.connectionErrors,
            connectionErrorsFirst: result.connectionErrorsFirst.isEmpty ? nil : result.connectionErrorsFirst,
            refusals: t.refusals.isEmpty ? nil : t.refusals,
            allConnectedSeconds: result.allConnectedSeconds.map { $0.thousandths },
            neverConnected: result.neverConnected > 0 ? result.neverConnected : nil,
            verify: result.verify,
            histograms: ReportHistograms(latency: result.latency, lateness: result.lateness),
            reloads: result.reloads.isEmpty ? nil : result.reloads,
            commands: result.commandGroups.isEmpty ? nil : t.commands,
            commandLatency: result.commandLatency.isEmpty ? nil : Percentiles(result.commandLatency),
            commandSubscribeLatency: result.subscribeLatency.isEmpty ? nil : Percentiles(result.subscribeLatency),
            timeline: result.timeline, stages: result.stages.isEmpty ? nil : result.stages, capacity: result.capacity,
            subscribers: result.subscribers.isEmpty ? nil : result.subscribers)
        withConnectTimings(result.connectTimings)
        details.hosts = result.hosts.isEmpty ? nil : result.hosts
    }

    /// The report of a run with no devices to drive — a shard of a fleet smaller than its
    /// number of shards: every count 0, outcome "empty shard", and empty histograms, so that
    /// `report merge` can take it with the others.
    public static func empty(scenarios: [String], seed: UInt64) -> RunReport {
        var report = RunReport(
            result: RunResult(
                totals: Totals(), connectionsUpAtEnd: 0, connections: 0, durationSeconds: 0,
                reason: .duration, latency: Histogram(), lateness: Histogram(), groups: [],
                connectionErrors: [:], allConnectedSeconds: 0),
            scenarios: scenarios, seed: seed)
        report.outcome = emptyShardOutcome
        return report
    }

    package static let emptyShardOutcome = "empty shard"

    /// The report as stage `stage` alone would have it, for `--expect stage[N].…`: its counts,
    /// length, rate, latency and lateness (`ReportMetrics.perStage`); the rest as the run's.
    package func ofStage(_ stage: StageFigures) -> RunReport {
        var report = self
        report.limit(to: stage.point)
        return report
    }

    /// A report of what happened over `point` alone: the figures `ReportMetrics.perStage`
    /// reads, and nothing else.
    package static func of(_ point: Timeline.Point) -> RunReport {
        var report = RunReport.empty(scenarios: [], seed: 0)
        report.limit(to: point)
        return report
    }

    private mutating func limit(to point: Timeline.Point) {
        figures = Figures()
        self[.scheduled] = point.scheduled
        self[.published] = point.published
        self[.acknowledged] = point.acknowledged
        self[.unchanged] = point.unchanged
        self.durationSeconds = point.seconds
        self.ratePerSecond = point.seconds > 0 ? (Double(point.published) / point.seconds * 100).rounded() / 100 : 0
        let latency = point.latency.histogram
        self.latency = latency.isEmpty ? nil : Percentiles(latency)
        self.lateness = Percentiles(point.lateness.histogram)
        self.verify = nil
        self.subscribers = nil
        self.hosts = nil
    }

    /// Pretty-printed JSON with sorted keys, ending in a newline.
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        var data = try encoder.encode(self)
        data.append(0x0A)
        return data
    }
}
