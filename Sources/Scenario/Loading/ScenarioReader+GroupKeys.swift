import MQTT
import Signals

/// How the keys of a device group are read, each value checked on its own (`GroupKeys.table`
/// says which reading each key takes); what the keys say together is checked in
/// `ScenarioReader+Devices`.
extension ScenarioReader {
    /// `onChange: { fields: [door_open], heartbeat: 10m }`.
    func onChange(_ node: Node) -> OnChange? {
        guard let entries = entries(node, of: "'onChange'", known: ScenarioKeys.onChange.keys) else { return nil }
        var result = OnChange(fields: [])
        if let fieldsNode = entries["fields"] {
            guard case .sequence(let items) = fieldsNode.kind, !items.isEmpty, items.allSatisfy({ $0.scalarText != nil }) else {
                report(fieldsNode.mark, "expected a list of field names for 'fields' of 'onChange', found \(fieldsNode.summary)")
                return nil
            }
            result.fields = items.compactMap(\.scalarText)
        }
        if let heartbeat = entries["heartbeat"] {
            guard let seconds = duration(heartbeat, "heartbeat", positive: true) else { return nil }
            result.heartbeat = seconds
        }
        return result
    }

    /// `commands: { topic: "devices/{id}/set", response: … }`: `{field}` and `{requestId}` each a
    /// whole level of the topic; `response` only with `{requestId}`, whose id it repeats.
    func commands(_ node: Node) -> Commands? {
        guard let entries = entries(node, of: "'commands'", known: ScenarioKeys.commands.keys) else { return nil }
        guard let topicNode = entries["topic"] else {
            missing("topic", in: entries, of: "'commands' (the topic each device listens on, such as devices/{id}/set)")
            return nil
        }
        guard let topic = template(topicNode, "topic", also: Commands.placeholders) else { return nil }
        let levels = topic.source.split(separator: "/", omittingEmptySubsequences: false)
        for placeholder in Commands.placeholders where topic.placeholders.contains(placeholder) {
            guard levels.contains(where: { $0 == "{\(placeholder)}" }) else {
                report(
                    topicNode.mark,
                    "'{\(placeholder)}' must be a whole level of the commands topic, such as devices/{id}/set/{\(placeholder)}")
                return nil
            }
        }
        if topic.source.contains("+") || topic.source.contains("#") {
            report(topicNode.mark, "the commands topic takes no wildcards: '{field}' and '{requestId}' stand for the levels that vary")
            return nil
        }
        var response: Template?
        if let responseNode = entries["response"] {
            guard topic.placeholders.contains("requestId") else {
                report(responseNode.mark, "'response' answers a request named by '{requestId}' in the commands topic, which has none")
                return nil
            }
            response = template(responseNode, "response", also: ["requestId"])
            guard response != nil else { return nil }
        }
        return Commands(topic: topic, response: response)
    }

    /// `discovery: homeassistant`, or `{ type: homeassistant, prefix, manufacturer, model }`.
    func discovery(_ node: Node) -> Discovery? {
        if node.scalarText != nil {
            return choice(node, "discovery", Discovery.types).map { _ in Discovery() }
        }
        guard let entries = entries(node, of: "'discovery'", known: ScenarioKeys.discovery.keys) else { return nil }
        guard entries["type"] != nil else {
            missing("type", in: entries, of: "'discovery' (homeassistant)")
            return nil
        }
        guard choice(entries["type"], "type", Discovery.types) != nil else { return nil }
        var discovery = Discovery()
        if let prefix = topic(entries["prefix"], "prefix") { discovery.prefix = prefix.text }
        discovery.manufacturer = string(entries["manufacturer"], "manufacturer")
        discovery.model = string(entries["model"], "model")
        return discovery
    }

    /// `availability: { topic: "devices/{id}/status" }`, with `online` and `offline` payloads.
    func availability(_ node: Node) -> Availability? {
        guard let entries = entries(node, of: "'availability'", known: ScenarioKeys.availability.keys) else { return nil }
        guard let topicNode = entries["topic"] else {
            missing("topic", in: entries, of: "'availability'")
            return nil
        }
        guard let topic = template(topicNode, "topic") else { return nil }
        return Availability(
            topic: topic, online: string(entries["online"], "online") ?? Availability.defaultOnline,
            offline: string(entries["offline"], "offline") ?? Availability.defaultOffline)
    }

    /// `verify: { sequence: seq, timestamp: ts }`, each key optional.
    func verifyFields(_ node: Node) -> VerifyFields? {
        guard let entries = entries(node, of: "'verify'", known: ScenarioKeys.verify.keys) else { return nil }
        return VerifyFields(
            sequence: string(entries["sequence"], "sequence") ?? VerifyFields.defaultSequence,
            timestamp: string(entries["timestamp"], "timestamp") ?? VerifyFields.defaultTimestamp)
    }

    /// `lifecycle: { online: 10m, offline: 30s, jitter: 20% }`.
    func lifecycle(_ node: Node) -> Lifecycle? {
        guard let entries = entries(node, of: "'lifecycle'", known: ScenarioKeys.lifecycle.keys) else { return nil }
        for key in ["online", "offline"] where entries[key] == nil {
            missing(key, in: entries, of: "'lifecycle' (how long each connection stays up, and away)")
        }
        let online = duration(entries["online"], "online", positive: true)
        let offline = duration(entries["offline"], "offline", positive: true)
        var jitter = 0.0
        if let node = entries["jitter"] {
            let text = node.scalarText ?? ""
            guard text.hasSuffix("%"), let percent = Double(text.dropLast()), (0..<100).contains(percent) else {
                report(node.mark, "expected a share under 100% such as 20% for 'jitter' of 'lifecycle', found \(node.summary)")
                return nil
            }
            jitter = percent / 100
        }
        guard let online, let offline else { return nil }
        return Lifecycle(online: online, offline: offline, jitter: jitter)
    }

    /// `auto` (one publish interval), `none`, or a duration such as `500ms` (`0s` is none).
    func jitter(_ node: Node) -> StartJitter? {
        if node.scalarText == "auto" { return .auto }
        if node.scalarText == "none" { return .upTo(0) }
        guard let text = node.scalarText, let seconds = try? Durations.parse(text) else {
            report(
                node.mark, "expected auto (one publish interval), none or \(Durations.expected) for 'jitter', found \(node.summary)")
            return nil
        }
        return .upTo(seconds)
    }

    /// A guard against a typo of a few zeros; far beyond what one process can connect.
    static let maximumCount = 1_000_000

    /// `perDevice` or `{ shared: N }`.
    func connection(_ node: Node) -> ConnectionMode? {
        if case .scalar(let text, _) = node.kind {
            guard text == "perDevice" else {
                report(
                    node.mark,
                    "expected perDevice or { shared: N } for 'connection', found \(node.summary)"
                        + (Suggestion.closest(to: text, among: ["perDevice", "shared"]).map {
                            // `shared` alone is the key without its count: the hint writes the whole form.
                            $0 == "shared"
                                ? "; write { shared: N }, N the connections the group's devices share" : "; did you mean '\($0)'?"
                        } ?? ""))
                return nil
            }
            return .perDevice
        }
        guard let entries = entries(node, of: "'connection'", known: ScenarioKeys.connection.keys) else { return nil }
        guard let sharedNode = entries["shared"] else {
            missing("shared", in: entries, of: "'connection' (the number of connections)")
            return nil
        }
        return integer(sharedNode, "shared", in: 1...Self.maximumCount).map(ConnectionMode.shared)
    }

    func payload(_ node: Node, of what: String) -> PayloadSpec? {
        let problemsBefore = diagnostics.count
        guard let entries = entries(node, of: "'payload'", known: ScenarioKeys.payload.keys) else { return nil }
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
        let read = pairs.compactMap { field($0.key, $0.value) }
        let template = payloadTemplate(entries, style: style, fieldNames: pairs.compactMap(\.key.scalarText))
        guard diagnostics.count == problemsBefore, let fields = formulas(read, in: fieldsNode) else { return nil }
        let size = payloadSize(entries, style: style ?? .milkcocoa, fields: fields, template: template)
        checkBytes(fields, style: style ?? .milkcocoa, size: size, sizeNode: entries["size"], fieldsNode: fieldsNode)
        guard diagnostics.count == problemsBefore else { return nil }
        return PayloadSpec(style: style ?? .milkcocoa, fields: fields, template: template, size: size)
    }

    /// The `template` of a `style: template` payload, its placeholders checked against the
    /// payload's top-level field names and the device placeholders.
    private func payloadTemplate(_ entries: Entries, style: PayloadStyle?, fieldNames: [String]) -> PayloadTemplate? {
        guard let node = entries["template"] else {
            if style == .template {
                missing("template", in: entries, of: "'payload' with style template (a text with {{field}} placeholders)")
            }
            return nil
        }
        guard let text = string(node, "template") else { return nil }
        guard style == .template else {
            if entries["style"] == nil || style != nil {
                report(
                    node.mark,
                    "'template' is used only with 'style: template'" + (style.map { "; this payload's style is \($0.rawValue)" } ?? ""))
            }
            return nil
        }
        let template: PayloadTemplate
        do {
            template = try PayloadTemplate(text, verbatim: node.verbatim)
        } catch {
            report(node.mark, "\(error.message) in 'template', at character \(error.offset + 1)")
            return nil
        }
        let known = fieldNames + PayloadTemplate.devicePlaceholders
        let knownSet = Set(known)
        // A payload may have thousands of fields: name a few, and look for hints for the first
        // few unknown placeholders only, since each look compares with every field.
        let listed =
            fieldNames.count <= 12
            ? fieldNames.joined(separator: ", ")
            : fieldNames.prefix(12).joined(separator: ", ") + " and \(fieldNames.count - 12) more"
        let expected =
            "; expected a field of the payload (" + listed + ") or "
            + PayloadTemplate.devicePlaceholders.map { "{{\($0)}}" }.joined(separator: ", ")
        var valid = true
        var reported: Set<String> = []
        for name in template.placeholders where !knownSet.contains(name) && reported.insert(name).inserted {
            valid = false
            let hint = reported.count <= 20 ? Suggestion.closest(to: name, among: known) : nil
            report(node.mark, "unknown placeholder '{{\(name)}}' in 'template'" + (hint.map { "; did you mean '{{\($0)}}'?" } ?? expected))
        }
        return valid ? template : nil
    }
}
