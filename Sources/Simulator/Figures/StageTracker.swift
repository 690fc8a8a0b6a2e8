import Reactor
import Report
import Scenario

/// The figures of each stage of the run's load profile (`stages:`): a reading at each stage's
/// end makes its figures, and the run's last reading those of the stage it ended in.
package struct StageTracker: Sendable {
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
