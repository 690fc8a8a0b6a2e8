extension ScenarioReader {
    /// The whole scenario; `nil` when anything was reported, here or in a file it includes.
    func scenario(_ root: Node, defaultName: String) -> Scenario? {
        guard let top = entries(root, of: "the scenario", known: ScenarioKeys.top.keys) else {
            return nil
        }
        let name = string(top["name"], "name")
        let broker = top["broker"].map(broker) ?? BrokerSettings()
        let offline = top["offline"].map(offline) ?? .drop
        let control = top["control"].flatMap(controlTopic)
        let verifier = top["verify"].flatMap(verifierSettings)
        let stages = top["stages"].map { self.stages($0) } ?? []
        var inherited = GroupKeys()
        if broker.azureIoTHub != nil {
            // Every device sends its telemetry to the hub's one device-to-cloud topic.
            inherited.topic = AzureIoTHub.telemetryTopic
            inherited.present.insert("topic")
        }
        let groups = fleet(top, inherited: inherited)
        let subscribers = top["subscribers"].map(subscribers) ?? []
        if let azure = broker.azureIoTHub { checkAzureIoTHub(azure, groups: groups, top: top) }
        checkSparkplugFleet(groups, broker: broker, offline: offline, top: top)
        if let node = top["stages"] {
            // A group with stages of its own follows those.
            let following = groups.filter(\.stages.isEmpty)
            for group in following {
                checkFollowing(
                    stages, by: "device group '\(group.name)'", publishesAtMax: !group.publish.perSecond.isFinite,
                    hasLifecycle: group.lifecycle != nil, at: node.mark)
            }
            if !following.isEmpty {
                checkDeviceCounts(stages, of: "the fleet", count: following.reduce(0) { $0 + $1.count }, at: node.mark)
            }
        }
        guard !session.hasProblems, let offline else { return nil }
        var scenario = Scenario(name: name ?? defaultName, file: file, broker: broker, offline: offline, groups: groups)
        scenario.controlTopic = control
        scenario.verify = verifier
        scenario.stages = stages
        scenario.subscribers = subscribers
        scenario.fileLocations = fileLocations
        return scenario
    }

    /// `control: { topic: devsim/control }`: where commands for the running fleet arrive.
    private func controlTopic(_ node: Node) -> String? {
        guard let entries = entries(node, of: "'control'", known: ScenarioKeys.control.keys) else { return nil }
        guard let topicNode = entries["topic"] else {
            missing("topic", in: entries, of: "'control'")
            return nil
        }
        guard let topic = string(topicNode, "topic") else { return nil }
        if topic.isEmpty || topic.contains("+") || topic.contains("#") {
            report(topicNode.mark, "expected a topic name, without wildcards, for 'topic', found \(topicNode.summary)")
            return nil
        }
        return topic
    }

    /// A file named in another's `include`: its device groups, filled from its own `defaults`
    /// and then from `defaults`, the including file's. What applies to a whole run (name,
    /// broker, offline) is the including scenario's to say.
    func includedFile(_ root: Node, by includer: String, defaults: GroupKeys) -> [DeviceGroup] {
        guard let top = entries(root, of: "an included file", known: ScenarioKeys.top.keys) else { return [] }
        for key in ["name", "broker", "offline", "control", "stages", "subscribers", "verify"] {
            guard let node = top.values[key] else { continue }
            report(node.mark, "'\(key)' cannot be set in an included file; set it in \(includer), which includes this one")
        }
        return fleet(top, inherited: defaults)
    }

    /// The device groups of one file: those of the files it includes, in the order given, then
    /// its own; each filled from the file's `defaults`, then from those it inherits.
    private func fleet(_ top: Entries, inherited: GroupKeys) -> [DeviceGroup] {
        let defaults = top["defaults"].map { self.defaults($0).filled(from: inherited) } ?? inherited
        var groups: [(group: DeviceGroup, mark: Mark)] = []
        var included: [String: Mark] = [:]
        for entry in top["include"].map(includeEntries) ?? [] {
            guard let path = string(entry, "include") else { continue }
            guard !path.isEmpty else {
                report(entry.mark, "expected the path of a scenario file to include, found \(entry.summary)")
                continue
            }
            let resolved = resolve(path)
            let key = LoadSession.standardized(resolved)
            if let first = included[key] {
                report(entry.mark, "'\(path)' is already included at line \(first.line)")
                continue
            }
            included[key] = entry.mark
            groups += session.include(resolved, by: self, at: entry, defaults: defaults).map { ($0, entry.mark) }
        }
        // A scenario of subscribers alone listens to what others publish.
        let own = devices(top["devices"], in: top, defaults: defaults, required: top["include"] == nil && top["subscribers"] == nil)
        groups += own.map { group in (group, group.location.map { Mark(line: $0.line, column: $0.column) } ?? top.mark) }
        return uniquelyNamed(groups)
    }

    /// `include: other.yaml` or `include: [a.yaml, b.yaml]`.
    private func includeEntries(_ node: Node) -> [Node] {
        switch node.kind {
        case .sequence(let items): return items
        case .scalar: return [node]
        case .mapping:
            report(node.mark, "expected a list of files for 'include', such as [rooms.yaml, meters.yaml], found \(node.summary)")
            return []
        }
    }

    /// Group names must differ across a scenario and the files it includes, since ids and
    /// client ids are made from them and two clients with one id throw each other off the broker.
    /// A clash is reported where the second group is written, or at the include that brings it.
    private func uniquelyNamed(_ groups: [(group: DeviceGroup, mark: Mark)]) -> [DeviceGroup] {
        var seen: [String: SourceLocation?] = [:]
        var unique: [DeviceGroup] = []
        for (group, mark) in groups {
            if let first = seen[group.name] {
                let place = first.map { $0.file == file ? "line \($0.line)" : $0.description } ?? "another file"
                let which = group.location.flatMap { $0.file == file ? nil : " (\($0))" } ?? ""
                report(mark, "device group name '\(group.name)'\(which) is already used at \(place); names must differ")
                continue
            }
            seen[group.name] = group.location
            unique.append(group)
        }
        return unique
    }
}
