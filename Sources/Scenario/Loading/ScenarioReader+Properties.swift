import MQTT

extension ScenarioReader {
    /// A device group's `properties:` (MQTT 5): `userProperties` (a mapping whose values are
    /// templates), `messageExpiry` (a duration), `contentType`, `payloadFormatIndicator`,
    /// `responseTopic`, `correlationData` (templates) and `topicAlias: auto`. Whether the
    /// protocol is 5 is the plan's to check, since `--protocol` may say (`FleetPlan`).
    func messageProperties(_ node: Node) -> MessageProperties? {
        let problemsBefore = diagnostics.count
        guard let entries = entries(node, of: "'properties'", known: ScenarioKeys.properties.keys) else { return nil }
        var properties = MessageProperties()
        properties.location = SourceLocation(file: file, line: node.mark.line, column: node.mark.column)
        if let pairsNode = entries["userProperties"] {
            properties.userProperties = userProperties(pairsNode)
        }
        if let expiry = entries["messageExpiry"], let seconds = duration(expiry, "messageExpiry") {
            if seconds == seconds.rounded(), seconds >= 1, seconds <= Double(UInt32.max) {
                properties.messageExpiry = UInt32(seconds)
            } else {
                report(
                    expiry.mark,
                    "expected whole seconds from 1s to 4294967295s (about 136 years) for 'messageExpiry', found \(expiry.summary)")
            }
        }
        properties.contentType = propertyText(entries["contentType"], "contentType")
        if let format = entries["payloadFormatIndicator"] {
            properties.payloadFormat = payloadFormat(format)
        }
        if let topic = entries["responseTopic"] {
            properties.responseTopic = self.topic(topic, "responseTopic")
            if let text = properties.responseTopic?.source, text.utf8.count > Self.maximumPropertyText {
                report(topic.mark, "expected at most \(Self.maximumPropertyText) bytes for 'responseTopic', found \(text.utf8.count)")
            }
        }
        properties.correlationData = propertyText(entries["correlationData"], "correlationData")
        if let alias = entries["topicAlias"], let mode = choice(alias, "topicAlias", ["auto", "none"]) {
            properties.topicAlias = mode == "auto"
        }
        return diagnostics.count == problemsBefore ? properties : nil
    }

    /// MQTT strings and binary data carry a two-byte length.
    static let maximumPropertyText = 65_535

    /// A template no longer than an MQTT string may be.
    private func propertyText(_ node: Node?, _ key: String) -> Template? {
        guard let node, let template = template(node, key) else { return nil }
        guard template.source.utf8.count <= Self.maximumPropertyText else {
            report(node.mark, "expected at most \(Self.maximumPropertyText) bytes for '\(key)', found \(template.source.utf8.count)")
            return nil
        }
        return template
    }

    /// `userProperties: { site: "plant-{index}" }`: names as written, values templates.
    func userProperties(_ node: Node) -> [(name: String, value: Template)] {
        guard let pairs = pairs(node, of: "'userProperties'") else { return [] }
        return pairs.compactMap { pair in
            guard let name = pair.key.scalarText else { return nil }
            guard !name.isEmpty, name.utf8.count <= Self.maximumPropertyText else {
                report(pair.key.mark, "expected a user property name of 1 to \(Self.maximumPropertyText) bytes, found \(pair.key.summary)")
                return nil
            }
            return propertyText(pair.value, name).map { (name, $0) }
        }
    }

    /// `utf8` (1 on the wire) or `bytes` (0), and the spellings a user reaches for.
    private func payloadFormat(_ node: Node) -> PayloadFormat? {
        let spellings: [String: PayloadFormat] = [
            "utf8": .utf8, "utf-8": .utf8, "UTF-8": .utf8, "text": .utf8, "1": .utf8, "bytes": .bytes, "binary": .bytes, "0": .bytes,
        ]
        guard let text = node.scalarText, let format = spellings[text] else {
            report(
                node.mark,
                "expected utf8 (1: the payload is UTF-8 text) or bytes (0: unspecified bytes) for 'payloadFormatIndicator', "
                    + "found \(node.summary)" + Suggestion.hint(for: node.scalarText ?? "", among: ["utf8", "bytes"]))
            return nil
        }
        return format
    }
}
