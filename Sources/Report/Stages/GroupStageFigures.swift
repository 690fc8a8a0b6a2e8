/// One stage of a device group's own load profile (the group's `stages:`), in its entry of the
/// report's `groups`: `{"stage":1,"target":"40 devices","plannedSeconds":30,"at":0,"seconds":30,
/// "scheduled":…,"published":…,"acknowledged":…,"connectionsUp":…}`. The group's counts over
/// the stage, and its connections up at the stage's end. Latency and lateness are measured per
/// event loop, whose connections are of every group: they are the run's stages' and timeline's.
public struct GroupStageFigures: Codable, Sendable, Equatable {
    public var stage: Int
    public var target: String
    public var plannedSeconds: Double
    /// The counts of a timeline point over the stage; its histograms are empty.
    public var point: Timeline.Point

    private enum Key: String, CodingKey {
        case stage, target, plannedSeconds, at, seconds, scheduled, published, acknowledged, unchanged, connectionsUp
    }

    /// `figures`, taken by a `StageTracker` from the group's counts, less what is not the group's.
    package init(_ figures: StageFigures) {
        stage = figures.stage
        target = figures.target
        plannedSeconds = figures.plannedSeconds
        point = Timeline.Point(at: figures.point.at, seconds: figures.point.seconds)
        point.scheduled = figures.point.scheduled
        point.published = figures.point.published
        point.acknowledged = figures.point.acknowledged
        point.unchanged = figures.point.unchanged
        point.connectionsUp = figures.point.connectionsUp
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        stage = try container.decode(Int.self, forKey: .stage)
        target = try container.decode(String.self, forKey: .target)
        plannedSeconds = try container.decode(Double.self, forKey: .plannedSeconds)
        point = Timeline.Point(
            at: try container.decode(Double.self, forKey: .at), seconds: try container.decode(Double.self, forKey: .seconds))
        point.scheduled = try container.decode(Int.self, forKey: .scheduled)
        point.published = try container.decode(Int.self, forKey: .published)
        point.acknowledged = try container.decode(Int.self, forKey: .acknowledged)
        point.unchanged = try container.decodeIfPresent(Int.self, forKey: .unchanged) ?? 0
        point.connectionsUp = try container.decode(Int.self, forKey: .connectionsUp)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(stage, forKey: .stage)
        try container.encode(target, forKey: .target)
        try container.encode(plannedSeconds, forKey: .plannedSeconds)
        // Milliseconds, as a timeline point's.
        try container.encode(point.at.thousandths, forKey: .at)
        try container.encode(point.seconds.thousandths, forKey: .seconds)
        try container.encode(point.scheduled, forKey: .scheduled)
        try container.encode(point.published, forKey: .published)
        try container.encode(point.acknowledged, forKey: .acknowledged)
        if point.unchanged > 0 { try container.encode(point.unchanged, forKey: .unchanged) }
        try container.encode(point.connectionsUp, forKey: .connectionsUp)
    }

    /// Shards' figures of one stage, side by side: the counts and connections added up.
    package static func merged(_ stages: [GroupStageFigures]) -> [GroupStageFigures] {
        var byStage: [Int: GroupStageFigures] = [:]
        for stage in stages {
            if var sum = byStage[stage.stage] {
                sum.point = sum.point.beside(stage.point)
                byStage[stage.stage] = sum
            } else {
                byStage[stage.stage] = stage
            }
        }
        return byStage.keys.sorted().map { byStage[$0]! }
    }
}
