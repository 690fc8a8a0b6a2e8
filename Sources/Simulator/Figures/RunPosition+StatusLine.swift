import Report

/// Where a run stands, as the status lines name it: said from the `RunPosition` that `/metrics`
/// and the live page show, so that the three cannot disagree. The figures of a line are read
/// against the stage or step it names, and a run held up shows which stage it is stuck in.
extension RunPosition {
    /// `stage 2 of 3 (x2)`, `capacity step 3 (4000/s), measuring`: the rate the fleet aims at
    /// now, which a cool-down puts at the scenarios'. `nil` in a run with neither stages nor a
    /// search. A group's own stages are left to `/metrics` and the live page: a line has room
    /// for one.
    package var statusText: String? {
        if let step {
            return "capacity step \(step.step)" + (statusTarget.map { " (\(Assertion.number($0))/s)" } ?? "") + ", \(step.phase.rawValue)"
        }
        guard let stage = scenarioStage else { return nil }
        guard let number = stage.stage else { return "after the last of \(stage.count) stages" }
        return "stage \(number) of \(stage.count)" + (stage.target.map { " (\($0))" } ?? "")
    }

    /// The same as fields of a JSON log line: `stage`, `stages`, `stageTarget`; `capacityStep`,
    /// `targetPerSecond`, `capacityActivity`.
    package var statusFields: [(key: String, value: Logger.Value)] {
        if let step {
            return [("capacityStep", .integer(step.step))] + (statusTarget.map { [("targetPerSecond", .number($0, decimals: 2))] } ?? [])
                + [("capacityActivity", .string(step.phase.rawValue))]
        }
        guard let stage = scenarioStage else { return [] }
        guard let number = stage.stage else { return [("stages", .integer(stage.count))] }
        return [("stage", .integer(number)), ("stages", .integer(stage.count))]
            + (stage.target.map { [("stageTarget", .string($0))] } ?? [])
    }

    /// The stage of the scenario's own profile.
    private var scenarioStage: Stage? { stages.first { $0.group == nil } }

    /// To the hundredth, as the report's steps give it.
    private var statusTarget: Double? { targetPerSecond.map { ($0 * 100).rounded() / 100 } }
}
