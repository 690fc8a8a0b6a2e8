import Signals

extension ScenarioReader {
    /// `sparkplug: { groupId: plant, edgeNodeId: "line-{index}", nodes: 10, reporting: exception,
    /// deadband: 0.5, primaryHost: scada }`: `groupId` required, the rest optional.
    func sparkplug(_ node: Node) -> SparkplugNodes? {
        guard let entries = entries(node, of: "'sparkplug'", known: ScenarioKeys.sparkplug.keys) else { return nil }
        if entries["groupId"] == nil { missing("groupId", in: entries, of: "'sparkplug' (the Sparkplug Group ID of the topics)") }
        let groupID = sparkplugID(entries["groupId"], "groupId")
        let edgeNodeID = entries["edgeNodeId"].flatMap { node in
            template(node, "edgeNodeId", allowID: false).flatMap { sparkplugID(node, "edgeNodeId", $0.source) == nil ? nil : $0 }
        }
        let nodes = entries["nodes"].flatMap { integer($0, "nodes", in: 1...ScenarioReader.maximumCount) }
        let reporting = choice(entries["reporting"], "reporting", ["exception", "all"])
        var deadband = 0.0
        if let node = entries["deadband"] {
            if reporting == "all" {
                report(node.mark, "'deadband' is for 'reporting: exception': with 'reporting: all' every metric goes out at every tick")
            }
            deadband = number(node, "deadband", atLeast: 0) ?? 0
        }
        let primaryHost = sparkplugID(entries["primaryHost"], "primaryHost")
        guard let groupID else { return nil }
        return SparkplugNodes(
            groupID: groupID, edgeNodeID: edgeNodeID ?? SparkplugNodes.defaultEdgeNodeID, nodes: nodes ?? 1,
            reporting: reporting == "all" ? .everyMetric : .byException(deadband: deadband), primaryHost: primaryHost)
    }

    private static func firstFieldName(in fields: [FieldSpec], containingAnyOf characters: String) -> String? {
        for field in fields {
            if field.name.contains(where: { characters.contains($0) }) { return field.name }
            if case .group(let members) = field.content, let bad = firstFieldName(in: members, containingAnyOf: characters) { return bad }
        }
        return nil
    }

    /// A Sparkplug ID (a group's, an edge node's, a host's): a topic level, so not empty and
    /// without '/', '+' or '#' (Sparkplug 3.0, 4.1.1). `text` is the node's own when not given.
    @discardableResult
    func sparkplugID(_ node: Node?, _ key: String, _ text: String? = nil) -> String? {
        guard let node, let text = text ?? string(node, key) else { return nil }
        guard !text.isEmpty, !text.contains(where: { "/+#".contains($0) }) else {
            report(node.mark, "expected a Sparkplug ID, a topic level without '/', '+' or '#', for '\(key)', found \(node.summary)")
            return nil
        }
        return text
    }
}

extension ScenarioReader {
    /// What a Sparkplug group cannot have with it: Sparkplug names the topics, the nodes are the
    /// connections, births and data go at QoS 0 without retain (3.0, 4.2–4.3), the births and
    /// deaths say whether a device is there, and DCMD writes the fields.
    func checkSparkplug(_ sparkplug: SparkplugNodes, _ keys: GroupKeys, _ entries: Entries, at mark: Mark, of what: String, name: String?) {
        let at = { (key: String) in (entries[key] ?? entries["sparkplug"])?.mark ?? mark }
        let refused: [(key: String, present: Bool, why: String)] = [
            ("topic", keys.topic != nil, "Sparkplug names the topics, spBv1.0/GROUP/DDATA/NODE/DEVICE: remove 'topic'"),
            ("connection", keys.connection != nil, "each edge node is one connection: say how many with 'sparkplug.nodes'"),
            ("qos", (keys.qos ?? .atMostOnce) != .atMostOnce, "Sparkplug sends births and data at QoS 0"),
            ("retain", keys.retain == true, "Sparkplug sends births and data without retain"),
            ("availability", keys.availability != nil, "a Sparkplug device's DBIRTH and DDEATH say whether it is there"),
            ("discovery", keys.discovery != nil, "a Sparkplug host learns a device's metrics from its DBIRTH"),
            ("commands", keys.commands != nil, "Sparkplug hosts write a field with a DCMD: give the field 'command: set'"),
            (
                "onChange", keys.onChange != nil || keys.publishesOnChange == true,
                "Sparkplug reports by exception: 'sparkplug.reporting: exception' sends only what changed"
            ),
            (
                "properties", keys.properties != nil,
                "Sparkplug B carries a message's metadata in its protobuf payload, and its births, deaths and data go alike: "
                    + "remove 'properties'"
            ),
            (
                "verify", keys.verify != nil,
                "'verify' names the JSON fields --verify reads, and --verify reads a Sparkplug payload's own seq and timestamp: "
                    + "remove 'verify'"
            ),
        ]
        for (key, present, why) in refused where present {
            report(at(key), "\(what) is a Sparkplug group, which takes no '\(key)': \(why)")
        }
        if let style = keys.payload?.style, style == .template || style == .perField {
            report(
                at("payload"),
                "\(what) is a Sparkplug group: its fields are the metrics of a protobuf payload, so 'style: \(style.rawValue)' does not apply"
            )
        }
        if case .byException = sparkplug.reporting, keys.publish.map({ !$0.perSecond.isFinite }) == true {
            report(
                at("publish"),
                "\(what) publishes at max and reports by exception: a tick with nothing changed sends nothing, so it would spin; use 'reporting: all' or a rate"
            )
        }
        // A metric's name is the field's path, '/' between groups, and a DCMD names the field by it.
        if let bad = keys.payload.flatMap({ Self.firstFieldName(in: $0.fields, containingAnyOf: "./") }) {
            report(
                at("payload"),
                "\(what) is a Sparkplug group, whose metrics are named by their fields' paths, and field '\(bad)' has a '.' or '/' in its name"
            )
        }
        if let count = keys.count, sparkplug.nodes > count {
            report(
                at("sparkplug"),
                "\(what) has \(sparkplug.nodes) Sparkplug edge nodes for \(count) devices: a node needs at least one device")
        }
        if sparkplug.nodes > 1, !sparkplug.edgeNodeID.placeholders.contains("index") {
            report(
                at("sparkplug"),
                "\(what) has \(sparkplug.nodes) Sparkplug edge nodes, and 'edgeNodeId' gives them one id: put {index} in it")
        }
        // The ids are topic levels: the group's name must not break them.
        guard let name else { return }
        let ids = [
            ("edgeNodeId", "edge node", sparkplug.edgeNodeID(1, group: name)),
            ("id", "device", (keys.id ?? Template("{name}-{index}")).render(name: name, index: 1, id: nil)),
        ]
        for (key, whose, id) in ids where id.isEmpty || id.contains(where: { "/+#".contains($0) }) {
            report(at(key), "\(what) is a Sparkplug group, whose \(whose) ids are topic levels, and '\(id)' has a '/', '+' or '#' in it")
        }
    }
}

extension ScenarioReader {
    /// What Sparkplug groups rule out across the scenario: a session the broker keeps (an edge
    /// node connects with a clean session, 3.0, 7.1), Azure IoT Hub's topics, and two groups that
    /// would be the same edge node.
    func checkSparkplugFleet(_ groups: [DeviceGroup], broker: BrokerSettings, offline: OfflinePolicy?, top: Entries) {
        let sparkplugGroups = groups.filter { $0.sparkplug != nil }
        guard let first = sparkplugGroups.first else { return }
        let mark = top["broker"]?.mark ?? top.mark
        if case .buffer? = offline {
            // Kept through an outage, the DDATA would follow the next births as live data and
            // undo what they said (a host takes the last value it hears).
            report(
                top["offline"]?.mark ?? mark,
                "'offline: buffer' with Sparkplug device group '\(first.name)': a node's births after a reconnect say what is current, and data kept from before them would not be"
            )
        }
        if broker.cleanSession == false {
            report(mark, "'cleanSession: false' with Sparkplug device group '\(first.name)': an edge node connects with a clean session")
        }
        if broker.azureIoTHub != nil {
            report(mark, "'azureIoTHub' with Sparkplug device group '\(first.name)': Azure IoT Hub takes no topics but its own")
        }
        var owners: [String: String] = [:]
        for group in sparkplugGroups {
            guard let sparkplug = group.sparkplug else { continue }
            for index in 1...sparkplug.nodes {
                let node = sparkplug.groupID + "/" + sparkplug.edgeNodeID(index, group: group.name)
                if let owner = owners[node], owner != group.name {
                    report(
                        group.location.flatMap { $0.file == file ? Mark(line: $0.line, column: $0.column) : nil } ?? mark,
                        "device groups '\(owner)' and '\(group.name)' are both Sparkplug edge node \(node): give them other 'edgeNodeId's")
                    break
                }
                owners[node] = group.name
            }
        }
    }
}
