import Signals

extension ScenarioReader {
    /// The `devices:` list: required and not empty; group names must differ, since ids and client
    /// ids are made from them and two clients with one id throw each other off the broker.
    func devices(_ node: Node?, in top: Entries) -> [DeviceGroup] {
        guard let node else {
            missing("devices", in: top, of: "the scenario (a list of device groups)")
            return []
        }
        guard case .sequence(let items) = node.kind else {
            report(node.mark, "expected a list of device groups for 'devices', found \(node.summary)")
            return []
        }
        if items.isEmpty {
            report(node.mark, "expected at least one device group in 'devices', found an empty list")
        }
        var groups: [DeviceGroup] = []
        var names: [String: Mark] = [:]
        for item in items {
            guard let group = group(item) else { continue }
            if let first = names[group.name] {
                report(item.mark, "device group name '\(group.name)' is already used at line \(first.line); names must differ")
                continue
            }
            names[group.name] = item.mark
            groups.append(group)
        }
        return groups
    }

    private func group(_ node: Node) -> DeviceGroup? {
        let problemsBefore = diagnostics.count
        guard let entries = entries(node, of: "a device group", known: [
            "name", "count", "id", "clientId", "topic", "sample", "publish", "qos", "retain",
            "connection", "rampUp", "payload",
        ]) else { return nil }
        var name = string(entries["name"], "name")
        if let nameNode = entries["name"], name?.isEmpty == true {
            report(nameNode.mark, "expected a non-empty name for 'name', found \(nameNode.summary)")
            name = nil
        }
        let what = name.map { "device group '\($0)'" } ?? "a device group"
        if entries["name"] == nil { missing("name", in: entries, of: what) }

        // Read every key before giving up on any, so that all problems are reported.
        let count = integer(entries["count"], "count", in: 1...Self.maximumCount)
        let id = template(entries["id"], "id", allowID: false)
        let clientID = template(entries["clientId"], "clientId")
        let topic = self.topic(entries["topic"], "topic")
        let sample = rate(entries["sample"], "sample", allowMax: false)
        let publish = rate(entries["publish"], "publish")
        let qos = integer(entries["qos"], "qos", in: 0...2)
        let retain = bool(entries["retain"], "retain")
        let connection = entries["connection"].flatMap(self.connection)
        let rampUp = rate(entries["rampUp"], "rampUp")
        let payload = entries["payload"].flatMap { self.payload($0, of: what) }
        if entries["topic"] == nil { missing("topic", in: entries, of: what) }
        if entries["publish"] == nil { missing("publish", in: entries, of: what) }
        if entries["payload"] == nil { missing("payload", in: entries, of: what) }

        guard let name, let topic, let publish, let payload, diagnostics.count == problemsBefore else { return nil }
        return DeviceGroup(name: name, count: count ?? 1, id: id ?? Template("{name}-{index}"),
                           clientID: clientID ?? Template("{id}"), topic: topic, sample: sample,
                           publish: publish, qos: qos ?? 0, retain: retain ?? false,
                           connection: connection ?? .perDevice, rampUp: rampUp, payload: payload)
    }

    /// A guard against a typo of a few zeros; far beyond what one process can connect.
    static let maximumCount = 1_000_000

    /// `perDevice` or `{ shared: N }`.
    private func connection(_ node: Node) -> ConnectionMode? {
        if case .scalar(let text, _) = node.kind {
            guard text == "perDevice" else {
                report(node.mark, "expected perDevice or { shared: N } for 'connection', found \(node.summary)"
                       + Suggestion.hint(for: text, among: ["perDevice", "shared"]))
                return nil
            }
            return .perDevice
        }
        guard let entries = entries(node, of: "'connection'", known: ["shared"]) else { return nil }
        guard let sharedNode = entries["shared"] else {
            missing("shared", in: entries, of: "'connection' (the number of connections)")
            return nil
        }
        return integer(sharedNode, "shared", in: 1...Self.maximumCount).map(ConnectionMode.shared)
    }

    private func payload(_ node: Node, of what: String) -> PayloadSpec? {
        let problemsBefore = diagnostics.count
        guard let entries = entries(node, of: "'payload'", known: ["style", "fields", "template"]) else { return nil }
        let style = choice(entries["style"], "style", PayloadStyle.allCases.map(\.rawValue)).flatMap(PayloadStyle.init(rawValue:))
        guard let fieldsNode = entries["fields"] else {
            missing("fields", in: entries, of: "'payload' of \(what)")
            return nil
        }
        guard let pairs = pairs(fieldsNode, of: "'fields'") else { return nil }
        if pairs.isEmpty {
            report(fieldsNode.mark, "expected at least one field in 'fields', found \(fieldsNode.summary)")
            return nil
        }
        let fields = pairs.compactMap { field($0.key, $0.value) }
        let template = payloadTemplate(entries, style: style, fieldNames: pairs.compactMap(\.key.scalarText))
        guard diagnostics.count == problemsBefore else { return nil }
        return PayloadSpec(style: style ?? .milkcocoa, fields: fields, template: template)
    }

    /// The `template` of a `style: template` payload, its placeholders checked against the
    /// payload's top-level field names and the device placeholders.
    private func payloadTemplate(_ entries: Entries, style: PayloadStyle?, fieldNames: [String]) -> PayloadTemplate? {
        guard let node = entries["template"] else {
            if style == .template { missing("template", in: entries, of: "'payload' with style template (a text with {{field}} placeholders)") }
            return nil
        }
        guard let text = string(node, "template") else { return nil }
        guard style == .template else {
            if entries["style"] == nil || style != nil {
                report(node.mark, "'template' is used only with 'style: template'" + (style.map { "; this payload's style is \($0.rawValue)" } ?? ""))
            }
            return nil
        }
        let template: PayloadTemplate
        do {
            template = try PayloadTemplate(text)
        } catch {
            report(node.mark, "\(error.message) in 'template', at character \(error.offset + 1)")
            return nil
        }
        let known = fieldNames + PayloadTemplate.devicePlaceholders
        var valid = true
        var reported: Set<String> = []
        for name in template.placeholders where !known.contains(name) && reported.insert(name).inserted {
            valid = false
            let hint = Suggestion.closest(to: name, among: known).map { "; did you mean '{{\($0)}}'?" }
                ?? "; expected a field of the payload (" + fieldNames.joined(separator: ", ") + ") or "
                + PayloadTemplate.devicePlaceholders.map { "{{\($0)}}" }.joined(separator: ", ")
            report(node.mark, "unknown placeholder '{{\(name)}}' in 'template'\(hint)")
        }
        return valid ? template : nil
    }
}
