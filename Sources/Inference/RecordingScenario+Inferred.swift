import Scenario

extension RecordingScenario {
    /// A scenario of generators fitted to `recording` (`devsim record --infer`): a device group
    /// per recorded topic shape, publishing at the recorded median interval, each JSON field
    /// a generator fitted to its recorded values (`FieldFit`), each with a comment of what was
    /// seen.
    ///
    /// Recorded devices (`Recording.devices()`) alike in their topics and payload keys, whose
    /// ids are one text with the numbers 1 to N (`room-1` … `room-20`), are one group of
    /// `count: N`, `id: "room-{index}"`, as a scenario would write them; others are a group
    /// each, of one device with its recorded id. A group publishes on one topic, so a device
    /// with several topics is a group per topic, its ids named after the topic
    /// (`room-{index}-door`). A payload that is no JSON object is one field, `value`, written
    /// alone (`style: template`); one that is not text is `style: raw`, random bytes of the
    /// recorded median size.
    public static func inferred(_ recording: Recording, name: String) -> String {
        var text = """
            # Generators fitted to a recording (devsim record --infer): a device group per recorded kind of
            # device and topic, publishing at the recorded median interval, each payload field in the
            # recorded order with a generator fitted to the recorded values, and a comment above it of
            # what was recorded (docs/recordings.md says what is fitted and how). Change count to
            # change the fleet's size. devsim sample shows what it publishes.
            name: \(quoted(name))
            devices:

            """
        var names = Set<String>()
        for fleet in fleets(of: recording.devices()) {
            let first = fleet.devices[0]
            for (index, topic) in first.topics.enumerated() {
                // A scenario's topic reads `{…}` and `${…}` as placeholders, and has no escape.
                if topic.contains(where: { $0 == "{" || $0 == "}" || $0 == "$" }) {
                    text += "  # left out: \(quoted(topic)), whose braces or $ a scenario's topic would read as placeholders\n\n"
                    continue
                }
                let template = first.template(of: topic)
                let deviceTopics = fleet.devices.map { device in device.topics.first { device.template(of: $0) == template } ?? topic }
                let series = zip(fleet.devices, deviceTopics).map { device, topic in
                    (id: device.id, messages: device.messages.filter { $0.topic == topic })
                }
                let level = nonIDLevel(of: template)
                let groupName = unique(index == 0 ? fleet.name : fleet.name + "-" + level, among: &names)
                let id = index == 0 ? fleet.idTemplate : fleet.idTemplate + "-" + level
                let groupTopic = index == 0 ? template : first.template(of: topic, replacement: fleet.idTemplate)
                text += group(name: groupName, count: fleet.devices.count, id: id, topic: groupTopic, template: template, series: series)
            }
        }
        return text
    }

    /// Recorded devices that one group describes: its name, its devices' id template.
    struct Fleet {
        var devices: [RecordedDevice]
        var name: String
        var idTemplate: String
    }

    /// The devices as groups: those alike, with ids one text and the numbers 1 to N, together.
    static func fleets(of devices: [RecordedDevice]) -> [Fleet] {
        var shapes: [String] = []
        var byShape: [String: [RecordedDevice]] = [:]
        for device in devices {
            let shape = self.shape(of: device)
            if byShape[shape] == nil { shapes.append(shape) }
            byShape[shape, default: []].append(device)
        }
        var fleets: [Fleet] = []
        for shape in shapes {
            let members = byShape[shape] ?? []
            let numbered = members.map { numberedID($0.id) }
            if members.count > 1, let first = numbered[0],
                numbered.allSatisfy({ $0?.prefix == first.prefix && $0?.suffix == first.suffix }),
                Set(numbered.compactMap { $0?.number }) == Set(1...members.count)
            {
                let ordered = members.sorted { (numberedID($0.id)?.number ?? 0) < (numberedID($1.id)?.number ?? 0) }
                var name = first.prefix + first.suffix
                while let last = name.last, "-_./: ".contains(last) { name.removeLast() }
                while let head = name.first, "-_./: ".contains(head) { name.removeFirst() }
                fleets.append(
                    Fleet(devices: ordered, name: name.isEmpty ? "device" : name, idTemplate: first.prefix + "{index}" + first.suffix))
            } else {
                fleets += members.map { Fleet(devices: [$0], name: $0.id, idTemplate: $0.id) }
            }
        }
        // In the order their first messages came.
        return fleets.sorted {
            ($0.devices.map { $0.messages.first?.time ?? 0 }.min() ?? 0) < ($1.devices.map { $0.messages.first?.time ?? 0 }.min() ?? 0)
        }
    }

    /// What devices must share to be one group: their topics with the id left out, and each
    /// topic's first payload's kind and keys.
    static func shape(of device: RecordedDevice) -> String {
        device.topics.map { topic -> String in
            let payload = device.messages.first { $0.topic == topic }.map { RecordedPayload($0) } ?? .binary(size: 0)
            let keys: String =
                if case .object(.object(let members)) = payload { members.map(\.key).joined(separator: ",") } else { "\(payload.kind)" }
            return device.template(of: topic) + "\u{0}" + keys
        }.sorted().joined(separator: "\u{1}")
    }

    /// `room-12` as `room-`, 12 and ``: its last number, written as `{index}` writes it.
    static func numberedID(_ id: String) -> (prefix: String, number: Int, suffix: String)? {
        let characters = Array(id)
        guard let end = characters.lastIndex(where: { $0.isASCII && $0.isNumber }) else { return nil }
        var start = end
        while start > 0, characters[start - 1].isASCII, characters[start - 1].isNumber { start -= 1 }
        let digits = String(characters[start...end])
        guard let number = Int(digits), String(number) == digits else { return nil }
        return (String(characters[..<start]), number, String(characters[(end + 1)...]))
    }

    /// The last level of a topic template that is not the id: what names a device's other topics.
    static func nonIDLevel(of template: String) -> String {
        template.split(separator: "/").last { $0 != "{id}" && !$0.isEmpty }.map(String.init) ?? "topic"
    }

    /// One device group's text.
    private static func group(
        name: String, count: Int, id: String, topic: String, template: String, series: [(id: String, messages: [RecordedMessage])]
    ) -> String {
        let messages = series.flatMap(\.messages)
        let intervals = series.flatMap { source in zip(source.messages.dropFirst(), source.messages).map { $0.time - $1.time } }
        let times = messages.map(\.time)
        let span = (times.max() ?? 0) - (times.min() ?? 0)
        let qos = messages.map(\.qos.rawValue).max() ?? 0
        let ids = series.map(\.id)
        var text = "  # \(template): \(count == 1 ? "1 device" : "\(count) devices") recorded ("
        text += (ids.count > 2 ? "\(ids[0]) … \(ids[ids.count - 1])" : ids.joined(separator: ", "))
        text += "), \(messages.count) messages over \(duration(span))\n"
        let interval: Double
        if let median = Statistics.median(intervals), median > 0 {
            interval = median
            text += "  # one every \(duration(median)) (the median interval of each device's messages; "
            text += "\(duration(intervals.min() ?? median)) to \(duration(intervals.max() ?? median)))\n"
        } else {
            interval = max(span, 60)
            text += "  # no device published twice on it: the interval is a guess\n"
        }
        text += "  - name: \(quoted(name))\n"
        text += "    count: \(count)\n"
        text += "    id: \(quoted(id))\n"
        text += "    topic: \(quoted(topic))\n"
        text += "    publish: \(rate(interval: interval))\n"
        text += "    qos: \(qos)\n"
        if !messages.isEmpty, messages.allSatisfy(\.retain) { text += "    retain: true\n" }
        text += payload(series)
        return text + "\n"
    }

    /// The payload's text: fields fitted to the JSON objects, or one `value`, or raw bytes.
    private static func payload(_ series: [(id: String, messages: [RecordedMessage])]) -> String {
        let payloads = series.map { source in source.messages.map { (time: $0.time, payload: RecordedPayload($0)) } }
        var kinds: [RecordedPayload.Kind: Int] = [:]
        for payload in payloads.joined() { kinds[payload.payload.kind, default: 0] += 1 }
        let kind = kinds.max { ($0.value, $1.key.rawValue) < ($1.value, $0.key.rawValue) }?.key ?? .binary
        let other = kinds.filter { $0.key != kind }.values.reduce(0, +)
        var text = other > 0 ? "    # \(other) messages of another kind of payload are not fitted\n" : ""
        let fieldSeries = FieldSeries(
            sources: zip(series, payloads).map { source, payloads in
                FieldSeries.Source(
                    id: source.id,
                    points: payloads.compactMap { time, payload in
                        switch (kind, payload) {
                        case (.object, .object(let value)), (.value, .value(let value)): FieldSeries.Point(time: time, value: value)
                        default: nil
                        }
                    })
            })
        switch kind {
        case .object:
            text += "    payload:\n      style: flat\n      fields:\n"
            let fit = FieldFit.fit(fieldSeries)
            if fit.members.isEmpty { text += "        # the recorded objects are empty\n        empty: { constant: \"\" }\n" }
            text += fields(fit.members, indent: "        ")
        case .value:
            text += "    # each payload is one value, not a JSON object: written alone\n"
            text += "    payload:\n      style: template\n      template: \"{{value}}\"\n      fields:\n"
            text += fields([(name: "value", fit: FieldFit.fit(fieldSeries))], indent: "        ")
        case .binary:
            let sizes = payloads.joined().compactMap { if case .binary(let size) = $0.payload { Double(size) } else { nil } }
            let size = max(1, Int(Statistics.median(sizes) ?? 1))
            text += "    # binary payloads of \(Int(sizes.min() ?? 0)) to \(Int(sizes.max() ?? 0)) bytes: random bytes of the median size\n"
            text += "    payload:\n      style: raw\n      fields:\n        bytes: { bytes: { size: \(size), content: random } }\n"
        }
        return text
    }

    /// Each field's comment and line, a group's fields below its name.
    private static func fields(_ members: [(name: String, fit: FieldFit)], indent: String) -> String {
        var text = ""
        for (name, fit) in members {
            text += indent + "# \(name): \(fit.comment)\n"
            if let generator = fit.generator {
                text += indent + key(name) + ": " + generator + "\n"
            } else if !fit.members.isEmpty {
                text += indent + key(name) + ":\n" + indent + "  fields:\n" + fields(fit.members, indent: indent + "    ")
            }
        }
        return text
    }

    /// A field name as a YAML key: plain when it reads back as the same text, else quoted.
    static func key(_ name: String) -> String {
        let plain =
            name.first.map { $0.isLetter || $0 == "_" } == true
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
            && !["true", "false", "yes", "no", "on", "off", "null", "y", "n"].contains(name.lowercased())
        return plain ? name : quoted(name)
    }
}

/// A recorded payload as inference sees it: a JSON object, one value (a JSON number or
/// boolean, or any other text), or bytes that are not text.
enum RecordedPayload {
    enum Kind: Int { case object, value, binary }

    case object(RecordedJSON)
    case value(RecordedJSON)
    case binary(size: Int)

    init(_ message: RecordedMessage) {
        if let json = RecordedJSON.parse(message.payload) {
            switch json {
            case .object:
                self = .object(json)
                return
            case .number, .bool:
                self = .value(json)
                return
            case .string, .array, .null: break
            }
        }
        self = message.text.map { .value(.string($0)) } ?? .binary(size: message.payload.count)
    }

    var kind: Kind {
        switch self {
        case .object: .object
        case .value: .value
        case .binary: .binary
        }
    }
}
