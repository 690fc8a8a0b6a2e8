extension ScenarioReader {
    /// `stages: [{ duration: 30s, rate: 20/s }, { duration: 1m, multiplier: 2 }]`; `ofGroup`
    /// for a device group's own, which cannot drop the whole fleet's connections.
    func stages(_ node: Node, ofGroup: Bool = false) -> [Stage] {
        guard case .sequence(let items) = node.kind else {
            report(node.mark, "expected a list of stages such as [{ duration: 30s, rate: 20/s }] for 'stages', found \(node.summary)")
            return []
        }
        guard !items.isEmpty else {
            report(node.mark, "'stages' is empty: give at least one, such as { duration: 30s, rate: 20/s }, or leave it out")
            return []
        }
        let stages = items.compactMap(stage)
        if ofGroup, let index = stages.firstIndex(where: \.disconnectsAll) {
            report(
                items[index].mark,
                "a device group's stage cannot 'disconnect: all': a reconnect storm drops the whole fleet; "
                    + "put the stage in the scenario's 'stages'")
            return []
        }
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
                    ? "a stage needs its target: 'rate' (each device's, such as 20/s), 'multiplier' (of the group's "
                        + "publish rate) or 'devices' (how many are in)"
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
            target = integer(entries["devices"], "devices", in: 0...Self.maximumCount).map(Stage.Target.devices)
        }
        guard let duration, let target else { return nil }
        return Stage(
            duration: duration, target: target, disconnectsAll: disconnects ?? false,
            location: SourceLocation(file: file, line: node.mark.line, column: node.mark.column))
    }
}

extension ScenarioReader {
    /// What a group that follows `stages` must be, reported at `mark`: one with a rate to ramp,
    /// and under `devices` stages, one without a lifecycle of its own.
    func checkFollowing(_ stages: [Stage], by what: String, publishesAtMax: Bool, hasLifecycle: Bool, at mark: Mark) {
        if publishesAtMax {
            report(mark, "'stages' ramp each device's rate, and \(what) publishes at max: it has no rate to ramp")
        }
        if hasLifecycle, stages.setsDevices {
            report(
                mark,
                "\(what) has a 'lifecycle' and follows 'devices' stages: either the stages or the lifecycle say when a device "
                    + "is connected, not both")
        }
    }

    /// `devices` stages over `count` devices (a group's, or for the scenario's stages the
    /// fleet's), reported at `mark`: they never go past the count, and they reach it.
    func checkDeviceCounts(_ stages: [Stage], of what: String, count: Int, at mark: Mark) {
        guard stages.setsDevices else { return }
        for (number, stage) in zip(1..., stages) {
            guard case .devices(let devices) = stage.target, devices > count else { continue }
            report(mark, "stage \(number) has \(devices) devices in, and \(what) has \(count): raise 'count' to \(devices)")
        }
        let peak = stages.devicePeak(count: count)
        if peak < count {
            report(
                mark,
                "\(what) has \(count) devices and the stages never have more than \(peak) in: the rest would never connect; "
                    + "make 'count' \(peak)")
        }
    }
}
