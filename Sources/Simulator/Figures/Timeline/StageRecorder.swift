import Reactor
import Scenario

/// The figures of each stage of the run's load profile (`stages:`): a reading at each stage's
/// end makes its figures, and the run's last reading those of the stage it ended in.
package struct StageRecorder: Sendable {
    package private(set) var figures: [StageFigures] = []
    private let stages: [Stage]
    /// Each stage's end on the monotonic clock.
    private let ends: [UInt64]
    private let start: UInt64
    private var previous: FigureReading

    package init(stages: [Stage], start: UInt64) {
        self.stages = stages
        self.start = start
        var end = 0.0
        ends = stages.map { stage in
            end += stage.duration
            return start &+ MonotonicClock.nanoseconds(end)
        }
        previous = FigureReading(time: start)
    }

    /// When the current stage ends; `nil` after the last.
    package var due: UInt64? { figures.count < ends.count ? ends[figures.count] : nil }

    /// Closes every stage that ended by `reading` (one that ended unread between two readings
    /// gets none of the figures, which the reading after it holds), and with `final` the one
    /// the run ended in.
    package mutating func record(_ reading: FigureReading, final: Bool = false) {
        while let due, reading.time >= due || final {
            let index = figures.count
            figures.append(
                StageFigures(
                    stage: index + 1, target: stages[index].targetText, plannedSeconds: stages[index].duration,
                    point: reading.point(since: previous, start: start)))
            previous = reading
            if reading.time < due { return }
        }
    }
}

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

    private enum Key: String, CodingKey {
        case stage, target, plannedSeconds
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
        point = try Timeline.Point(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(stage, forKey: .stage)
        try container.encode(target, forKey: .target)
        try container.encode(plannedSeconds, forKey: .plannedSeconds)
        try point.encode(to: encoder)
    }
}
