extension ScenarioReader {
    /// `stages: [{ duration: 30s, rate: 20/s }, { duration: 1m, multiplier: 2 }]`.
    func stages(_ node: Node) -> [Stage] {
        guard case .sequence(let items) = node.kind else {
            report(node.mark, "expected a list of stages such as [{ duration: 30s, rate: 20/s }] for 'stages', found \(node.summary)")
            return []
        }
        guard !items.isEmpty else {
            report(node.mark, "'stages' is empty: give at least one, such as { duration: 30s, rate: 20/s }, or leave it out")
            return []
        }
        let stages = items.compactMap(stage)
        if let first = stages.first, first.disconnectsAll, let mark = items.first?.mark {
            report(mark, "the first stage cannot 'disconnect: all': nothing is up yet; give the fleet a stage to connect in first")
        }
        return stages
    }

    private func stage(_ node: Node) -> Stage? {
        guard let entries = entries(node, of: "a stage", known: ScenarioKeys.stage.keys) else { return nil }
        guard let durationNode = entries["duration"] else {
            missing("duration", in: entries, of: "a stage")
            return nil
        }
        let duration = self.duration(durationNode, "duration", positive: true)
        let targets = ["rate", "multiplier", "devices"].filter { entries[$0] != nil }
        let disconnects = entries["disconnect"].map { choice($0, "disconnect", ["all"]) == "all" }
        if disconnects == false { return nil }
        if targets.isEmpty, disconnects == true {
            // A stage that only drops the connections holds the rate.
            guard let duration = self.duration(durationNode, "duration", positive: true) else { return nil }
            return Stage(
                duration: duration, target: .hold, disconnectsAll: true,
                location: SourceLocation(file: file, line: node.mark.line, column: node.mark.column))
        }
        guard targets.count == 1 else {
            report(
                entries.mark,
                targets.isEmpty
                    ? "a stage needs its target: 'rate' (each device's, such as 20/s) or 'multiplier' (of the group's publish rate)"
                    : "a stage has one target; found \(targets.map { "'\($0)'" }.joined(separator: " and "))")
            return nil
        }
        let target: Stage.Target?
        switch targets[0] {
        case "rate":
            let rateNode = entries["rate"]
            if let text = rateNode?.scalarText, Self.isZeroRate(text) {
                // A rate of zero is a pause on purpose, which `multiplier: 0` says.
                target = .multiplier(0)
            } else {
                target = rate(rateNode, "rate", allowMax: false).map(Stage.Target.rate)
            }
        case "multiplier":
            target = number(entries["multiplier"], "multiplier", atLeast: 0).map(Stage.Target.multiplier)
        default:
            report(
                entries["devices"]!.mark,
                "a stage of 'devices' is not supported yet; ramp the rate with 'rate' or 'multiplier', or change the count with a reload or scale"
            )
            target = nil
        }
        guard let duration, let target else { return nil }
        return Stage(
            duration: duration, target: target, disconnectsAll: disconnects ?? false,
            location: SourceLocation(file: file, line: node.mark.line, column: node.mark.column))
    }
}
