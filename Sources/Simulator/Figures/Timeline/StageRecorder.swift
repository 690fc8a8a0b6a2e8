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

    /// The stage under way at `now` by the clock, not by the readings, which may lag it; `nil`
    /// once the last is over.
    package func position(at now: UInt64) -> RunPosition.Stage {
        let count = stages.count
        guard let index = ends.firstIndex(where: { now < $0 }) else {
            return RunPosition.Stage(stage: nil, count: count, target: stages.last?.targetText, seconds: 0, plannedSeconds: 0)
        }
        let began = index == 0 ? start : ends[index - 1]
        return RunPosition.Stage(
            stage: index + 1, count: count, target: stages[index].targetText,
            seconds: now > began ? Double(now - began) / 1e9 : 0, plannedSeconds: stages[index].duration)
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

/// How a fleet came back from a stage that dropped every connection (`disconnect: all`):
/// `{"dropped":N,"back":M,"p50Seconds":…,"p90Seconds":…,"allSeconds":…}`, the seconds from the
/// drop until half, 90 % and all of the dropped connections had their CONNACK again; each
/// absent until that many were back.
public struct StageRecovery: Codable, Sendable, Equatable {
    public var dropped: Int
    public var back: Int
    public var p50Seconds: Double?
    public var p90Seconds: Double?
    public var allSeconds: Double?

    /// From the seconds each connection that came back took, in any order.
    package init(dropped: Int, back seconds: [Double]) {
        self.dropped = dropped
        back = seconds.count
        let sorted = seconds.sorted()
        func within(_ share: Double) -> Double? {
            let needed = max(1, Int((Double(dropped) * share).rounded(.up)))
            return dropped > 0 && sorted.count >= needed ? sorted[needed - 1].thousandths : nil
        }
        p50Seconds = within(0.5)
        p90Seconds = within(0.9)
        allSeconds = within(1)
    }

    /// Shards' recoveries from one stage: the counts added, and the time until all were back
    /// the longest of theirs, when every shard had all back. The shares' times cannot be made
    /// from theirs, so they are left out (`mergeWarning`).
    package init(dropped: Int, back: Int, p50Seconds: Double?, p90Seconds: Double?, allSeconds: Double?) {
        self.dropped = dropped
        self.back = back
        self.p50Seconds = p50Seconds
        self.p90Seconds = p90Seconds
        self.allSeconds = allSeconds
    }

    package func beside(_ other: StageRecovery) -> StageRecovery {
        var sum = self
        sum.dropped += other.dropped
        sum.back += other.back
        sum.p50Seconds = nil
        sum.p90Seconds = nil
        sum.allSeconds = allSeconds.flatMap { mine in other.allSeconds.map { max(mine, $0) } }
        return sum
    }

    package static let mergeWarning =
        "the shards' reconnect storms are added up: the merged recovery gives the counts and the time until all were back, "
        + "not the 50 % and 90 % times, which the shards' reports keep"
}
