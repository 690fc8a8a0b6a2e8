/// One stage's part of the report: `{"stage":1,"target":"20/s","plannedSeconds":30,...}`
/// beside the figures of a timeline's point over the stage (`at`, `seconds`, `scheduled`,
/// `published`, `acknowledged`, `connectionsUp`, `errors`, `latency`, `lateness`, `histograms`).
/// A stage the run ended in has `seconds` short of `plannedSeconds`.
public struct StageFigures: Codable, Sendable, Equatable {
    /// 1-based, as `--expect stage[N]…` names it.
    public var stage: Int
    public var target: String
    public var plannedSeconds: Double
    public var point: Timeline.Point
    /// With `disconnect: all`: how the fleet came back from the stage's drop.
    public var recovery: StageRecovery? = nil

    private enum Key: String, CodingKey {
        case stage, target, plannedSeconds, recovery
    }

    package init(stage: Int, target: String, plannedSeconds: Double, point: Timeline.Point) {
        self.stage = stage
        self.target = target
        self.plannedSeconds = plannedSeconds
        self.point = point
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        stage = try container.decode(Int.self, forKey: .stage)
        target = try container.decode(String.self, forKey: .target)
        plannedSeconds = try container.decode(Double.self, forKey: .plannedSeconds)
        recovery = try container.decodeIfPresent(StageRecovery.self, forKey: .recovery)
        point = try Timeline.Point(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(stage, forKey: .stage)
        try container.encode(target, forKey: .target)
        try container.encode(plannedSeconds, forKey: .plannedSeconds)
        try container.encodeIfPresent(recovery, forKey: .recovery)
        try point.encode(to: encoder)
    }
}
