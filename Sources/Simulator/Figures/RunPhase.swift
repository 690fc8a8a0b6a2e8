import Scenario

/// Where a run is in its load profile (`stages:`) or its capacity search, as the status lines
/// name it: the figures of a line are read against the stage or step they were made in, and a
/// run held up shows which stage it is stuck in.
package enum RunPhase: Sendable, Equatable {
    /// Stage `number` (1-based) of `count`, with its target as the report names it (`x2`, `20/s`).
    case stage(number: Int, count: Int, target: String)
    /// Past the last of `count` stages: a `--duration` longer than the profile.
    case afterStages(count: Int)
    /// A capacity search waiting for the fleet's connections before its first step.
    case capacityConnecting
    /// Step `number` of a capacity search, at `targetPerSecond`, doing `activity`; while cooling
    /// down after a break, the step that comes next.
    case capacityStep(number: Int, targetPerSecond: Double, activity: CapacityActivity)

    package enum CapacityActivity: String, Sendable {
        case warmingUp = "warming up"
        case measuring
        case awaitingArrivals = "counting what arrived"
        case coolingDown = "cooling down at the scenarios' rates first"
    }

    /// The stage under way once `closed` of `stages` have ended; `nil` without stages.
    package static func ofStages(_ stages: [Stage], closed: Int) -> RunPhase? {
        guard !stages.isEmpty else { return nil }
        guard closed < stages.count else { return .afterStages(count: stages.count) }
        return .stage(number: closed + 1, count: stages.count, target: stages[closed].targetText)
    }

    /// `stage 2 of 3 (x2)`, `capacity step 3 (4000/s), measuring`.
    package var text: String {
        switch self {
        case .stage(let number, let count, let target): "stage \(number) of \(count) (\(target))"
        case .afterStages(let count): "after the last of \(count) stages"
        case .capacityConnecting: "capacity: waiting for the connections"
        case .capacityStep(let number, let target, let activity):
            "capacity step \(number) (\(Assertion.number(target))/s), \(activity.rawValue)"
        }
    }

    /// The same as fields of a JSON log line: `stage`, `stages`, `stageTarget`; `capacityStep`,
    /// `targetPerSecond`, `capacityActivity`.
    package var fields: [(key: String, value: Logger.Value)] {
        switch self {
        case .stage(let number, let count, let target):
            [("stage", .integer(number)), ("stages", .integer(count)), ("stageTarget", .string(target))]
        case .afterStages(let count): [("stages", .integer(count))]
        case .capacityConnecting: [("capacityActivity", "connecting")]
        case .capacityStep(let number, let target, let activity):
            [
                ("capacityStep", .integer(number)), ("targetPerSecond", .number(target, decimals: 2)),
                ("capacityActivity", .string(activity.rawValue)),
            ]
        }
    }
}
