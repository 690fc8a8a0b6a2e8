import MQTT
import Signals

/// `payload.size` and `style: raw`: what each refuses as the scenario loads, so that no payload
/// comes out at a size other than the one asked for unnoticed, and no binary payload reaches a
/// feature that reads JSON.
extension ScenarioReader {
    /// MQTT's largest Remaining Length (four bytes of seven bits): the whole PUBLISH after its
    /// fixed header, topic and packet id included, so a payload gets a little less than 256 MB.
    static let maximumRemainingLength = 268_435_455

    /// `payload.size`, checked against the payload's style and fields; `nil` when absent or
    /// refused (reported).
    func payloadSize(_ entries: Entries, style: PayloadStyle, fields: [FieldSpec], template: PayloadTemplate?) -> Int? {
        guard let node = entries["size"], let size = size(node, "size") else { return nil }
        guard size >= 1 else {
            report(node.mark, "expected a size of at least 1 byte for 'size', found \(node.summary)")
            return nil
        }
        // The topic is not known here: the group checks the room left for it (`checkPayloadRoom`).
        guard size <= Self.maximumRemainingLength else {
            report(
                node.mark,
                "expected a size of at most \(Self.maximumRemainingLength) bytes (256MB less 1) for 'size', found \(node.summary): "
                    + "MQTT's Remaining Length holds a PUBLISH's topic and payload in 268,435,455 bytes")
            return nil
        }
        switch style {
        case .perField:
            report(node.mark, "'size' makes one payload that long; in the per-field style each field is a message of its own")
            return nil
        case .raw:
            return size
        case .milkcocoa, .flat, .template:
            let spec = PayloadSpec(style: style, fields: fields, template: template)
            if let longest = spec.longestLength, longest > size {
                report(
                    node.mark,
                    "'size' is \(size) bytes, but the fields can take up to \(longest) bytes in style \(style.rawValue): "
                        + "give a size of at least \(longest) (a number's longest form counts, unless its decimals and min and max bound it)"
                )
                return nil
            }
            return size
        }
    }

    /// `style: raw`'s fields: one, made by `bytes`, without modifiers, with one size (its own or
    /// the payload's, the same); and `bytes` in no other style, since JSON and templates carry
    /// text. Returns whether all is well (problems are reported).
    @discardableResult
    func checkBytes(_ fields: [FieldSpec], style: PayloadStyle, size: Int?, sizeNode: Node?, fieldsNode: Node) -> Bool {
        guard style == .raw else {
            if let name = Self.firstBytesField(in: fields) {
                report(
                    fieldsNode.mark,
                    "field '\(name)' is made by bytes, a binary value: only style: raw sends it (\(style.rawValue) payloads carry text)")
                return false
            }
            return true
        }
        guard fields.count == 1, let field = fields.first else {
            report(
                fieldsNode.mark,
                "style: raw sends one bytes field as the whole payload; found \(fields.count) fields ("
                    + fields.map(\.name).joined(separator: ", ") + ")")
            return false
        }
        guard let recipe = field.generator as? BytesRecipe else {
            let made = field.generator.map { "'\(type(of: $0).key)'" } ?? "a group of fields"
            report(
                fieldsNode.mark, "field '\(field.name)' of a raw payload must be made by bytes (the binary payload itself), found \(made)")
            return false
        }
        if field.decimals != nil || field.noise != nil || field.min != nil || field.max != nil || !field.faults.isEmpty
            || field.command != nil
        {
            report(
                fieldsNode.mark,
                "field '\(field.name)' is made by bytes, which takes no modifiers (decimals, noise, min, max, faults, command)")
            return false
        }
        switch (recipe.size, size) {
        case (nil, nil):
            report(
                fieldsNode.mark,
                "field '\(field.name)' needs its size: bytes: 64KB, bytes: { size: 64KB }, or the payload's size")
            return false
        case (let own?, let payload?) where own != payload:
            report(
                (sizeNode ?? fieldsNode).mark,
                "the payload's 'size' (\(payload) bytes) differs from its bytes field's (\(own) bytes): give one of them")
            return false
        case (let own?, _) where own < 1 || own > Self.maximumRemainingLength:
            report(fieldsNode.mark, "field '\(field.name)' has \(own) bytes: expected from 1 to \(Self.maximumRemainingLength)")
            return false
        default:
            return true
        }
    }

    /// The first field, at its dotted path, made by `bytes`.
    static func firstBytesField(in fields: [FieldSpec], prefix: String = "") -> String? {
        for field in fields {
            if field.generator is BytesRecipe { return prefix + field.name }
            if let members = field.fields, let found = firstBytesField(in: members, prefix: prefix + field.name + ".") {
                return found
            }
        }
        return nil
    }

    /// A group's use of its payload's size and bytes: room in a PUBLISH for the size and the
    /// topic, and no feature that reads JSON out of a raw payload.
    func checkPayloadUse(_ keys: GroupKeys, _ entries: Entries, at node: Node, of what: String) {
        guard let payload = keys.payload else { return }
        let payloadMark = (entries["payload"] ?? node).mark
        if let size = payload.size ?? payload.rawSize {
            // The PUBLISH's other bytes: the topic's length and text, the packet id at QoS 1 and
            // 2, an MQTT 5 property length; a topic a placeholder makes longer than written is
            // refused by libmosquitto at the publish, counted as failed.
            let topic = keys.topic?.source.utf8.count ?? 0
            let room = Self.maximumRemainingLength - 2 - topic - ((keys.qos ?? .atMostOnce).isAcknowledged ? 2 : 0) - 1
            if size > room {
                report(
                    Self.sizeNode(in: entries["payload"])?.mark ?? payloadMark,
                    "\(what) sends payloads of \(size) bytes, but a PUBLISH holds at most \(room) with its topic and packet id "
                        + "(MQTT's Remaining Length, 268,435,455 bytes)")
            }
        }
        if keys.sparkplug != nil, payload.size != nil {
            report(
                Self.sizeNode(in: entries["payload"])?.mark ?? payloadMark,
                "\(what) is a Sparkplug group: its payloads are protobuf, which 'size' does not pad")
        }
        guard payload.style == .raw else { return }
        let reads: [(key: String, present: Bool, why: String)] = [
            ("verify", keys.verify != nil, "verify reads a sequence number and a send time out of JSON"),
            ("discovery", keys.discovery != nil, "Home Assistant reads each value out of JSON"),
            ("onChange", keys.onChange != nil, "onChange compares fields, and a raw payload is bytes"),
            ("sparkplug", keys.sparkplug != nil, "a Sparkplug group's fields are the metrics of a protobuf payload"),
        ]
        for (key, present, why) in reads where present {
            report((entries[key] ?? node).mark, "\(what) has '\(key)' and a raw payload (style: raw): \(why)")
        }
        if keys.properties?.payloadFormat == .utf8 {
            report(
                (entries["properties"] ?? node).mark,
                "\(what) says its payloads are UTF-8 text (payloadFormatIndicator: utf8), but a raw payload is binary bytes, "
                    + "which a broker may refuse as such: say bytes, or leave the indicator out")
        }
        if keys.publishesOnChange == true {
            report((entries["publish"] ?? node).mark, "\(what) publishes on change, and a raw payload has no fields to compare")
        }
    }

    /// The `size` key's value inside a `payload` mapping.
    static func sizeNode(in payload: Node?) -> Node? {
        guard case .mapping(let pairs)? = payload?.kind else { return nil }
        return pairs.first { $0.key.scalarText == "size" }?.value
    }
}

extension PayloadSpec {
    /// The bytes' size of a raw payload that sets it on its field.
    var rawSize: Int? {
        guard style == .raw, case .generator(let recipe as BytesRecipe)? = fields.first?.content else { return nil }
        return recipe.size
    }
}
