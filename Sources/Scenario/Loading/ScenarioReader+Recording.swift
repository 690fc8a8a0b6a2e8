#if canImport(Glibc)
    import Glibc
#endif
import MQTT
import Signals

/// A device group's `recording:` (`RecordingSource`): the recording read as the scenario loads,
/// its problems at their own file, line and column, and the keys that cannot stand beside it.
extension ScenarioReader {
    /// The keys a group that replays a recording does not take, each with why: the recording
    /// says what they would.
    static let keysBesideRecording: [(key: String, why: String)] = [
        ("topic", "the topics are the recording's (recordedID rewrites the device's id in them)"),
        ("publish", "the timing is the recording's (speed sets its pace)"),
        ("sample", "the timing is the recording's (speed sets its pace)"),
        ("payload", "the payloads are the recording's, their size too"),
        ("retain", "each message keeps its recorded retain flag"),
        ("onChange", "every recorded message is sent"),
        ("sparkplug", "a recording holds the topics and payloads it was sent with"),
        ("properties", "a recording holds no MQTT 5 properties"),
        ("stages", "a recording has no rate for stages to shape (speed sets its pace)"),
        ("verify", "run --verify reads a sequence number a recorded payload does not carry"),
        ("discovery", "Home Assistant discovery announces a payload's fields, and a recording has none"),
        ("commands", "commands set a payload's fields, and a recording has none"),
    ]

    /// `recording: { file, topics, recordedID, speed, loop, timestamps }`; `nil` when absent or
    /// refused (reported).
    func recording(_ node: Node) -> RecordingSource? {
        guard let entries = entries(node, of: "'recording'", known: ScenarioKeys.recording.keys) else { return nil }
        guard let fileNode = entries["file"] else {
            missing("file", in: entries, of: "'recording' (the recording to replay, such as recording.jsonl)")
            return nil
        }
        let filters = recordingTopics(entries["topics"])
        let recordedID = string(entries["recordedID"], "recordedID")
        if let idNode = entries["recordedID"], recordedID?.isEmpty == true {
            report(idNode.mark, "expected the recorded device's id for 'recordedID', found an empty text")
        }
        let speed = entries["speed"].flatMap(speed)
        let loop = bool(entries["loop"], "loop")
        let timestamps = choice(entries["timestamps"], "timestamps", RecordingSource.Timestamps.allCases.map(\.rawValue))
            .flatMap(RecordingSource.Timestamps.init(rawValue:))
        guard let written = string(fileNode, "file") else { return nil }
        guard !written.isEmpty else {
            report(fileNode.mark, "expected a file path for 'file', found an empty text")
            return nil
        }
        let path = resolve(written)
        locateFile("recording.file", at: fileNode)
        guard let recording = loadRecording(path, at: fileNode) else { return nil }
        var messages = recording.messages
        if let filters {
            let matching = filters.map { filter in recording.messages.filter { filter.matches($0.topic) } }
            for (filter, selected) in zip(filters, matching) where selected.isEmpty {
                report(
                    entries["topics"]?.mark ?? node.mark,
                    "'topics' filter '\(filter.text)' selects no message of \(written)\(Self.topicsHint(filter.text, of: recording))")
            }
            messages = recording.messages.filter { message in filters.contains { $0.matches(message.topic) } }
        }
        guard let filters = filters ?? (entries["topics"] == nil ? [] : nil), !messages.isEmpty,
            recordedID?.isEmpty != true, entries["speed"] == nil || speed != nil, entries["loop"] == nil || loop != nil,
            entries["timestamps"] == nil || timestamps != nil
        else { return nil }
        return RecordingSource(
            file: path, topics: filters.map(\.text), recordedID: recordedID, speed: speed ?? 1, loop: loop ?? false,
            timestamps: timestamps ?? .keep, messages: messages)
    }

    /// `topics:`: a filter, or a list of topics and filters.
    private func recordingTopics(_ node: Node?) -> [TopicFilter]? {
        guard let node else { return nil }
        let texts: [String]
        if case .sequence(let items) = node.kind {
            guard !items.isEmpty, items.allSatisfy({ $0.scalarText != nil && !$0.isNull }) else {
                report(node.mark, "expected a topic filter or a list of them for 'topics', found \(node.summary)")
                return nil
            }
            texts = items.compactMap(\.scalarText)
        } else if let text = node.scalarText {
            texts = [text]
        } else {
            report(node.mark, "expected a topic filter or a list of them for 'topics', found \(node.summary)")
            return nil
        }
        var filters: [TopicFilter] = []
        for text in texts {
            do {
                let filter = try TopicFilter(text)
                guard !filter.isShared else {
                    report(node.mark, "'topics' selects recorded topics: '\(text)' is a shared subscription, which selects none")
                    return nil
                }
                filters.append(filter)
            } catch {
                report(node.mark, "'\(text)' in 'topics' is no topic filter: \(error.message)")
                return nil
            }
        }
        return filters
    }

    /// `2x`, `0.5x` (or a bare number): how much faster than recorded.
    private func speed(_ node: Node) -> Double? {
        let expected = "expected a speed above zero such as 2x (twice as fast), 1x or 0.5x (half) for 'speed'"
        guard let text = node.scalarText, !node.isNull else {
            report(node.mark, "\(expected), found \(node.summary)")
            return nil
        }
        var number = Substring(text).trimmingSpaces
        if number.hasSuffix("x") || number.hasSuffix("X") { number = number.dropLast().trimmingSpaces }
        guard let value = DecimalText.number(number), value.isFinite, value > 0 else {
            report(node.mark, "\(expected), found \(node.summary)")
            return nil
        }
        return value
    }

    /// The recording at `path`, read once however many groups replay it; its problems reported
    /// at their own places, a file that cannot be read at `node`.
    private func loadRecording(_ path: String, at node: Node) -> Recording? {
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
            let what = status.st_mode & S_IFMT == S_IFDIR ? "a directory" : "a device or a pipe"
            report(node.mark, "cannot read the recording '\(path)': it is \(what), not a file")
            return nil
        }
        guard session.readsRecordings else {
            report(node.mark, "cannot read the recording '\(path)': \(ScenarioLoader.isolatedReason)")
            return nil
        }
        if let known = session.recordings[path] {
            // Its problems were said once, at the first group that replays it.
            return try? known.get()
        }
        if stat(path, &status) != 0 {
            report(node.mark, "cannot read the recording '\(path)': no such file")
            session.recordings[path] = .failure(ScenarioError([]))
            return nil
        }
        do {
            let recording = try Recording.load(path: path)
            session.recordings[path] = .success(recording)
            return recording
        } catch {
            report(error.diagnostics)
            session.recordings[path] = .failure(error)
            return nil
        }
    }

    /// `; did you mean 'x'?` for a near miss of one of the recording's topics, and the topics
    /// (the first few of many).
    static func topicsHint(_ filter: String, of recording: Recording) -> String {
        let topics = recording.topics
        let shown = topics.prefix(8).joined(separator: ", ") + (topics.count > 8 ? ", … (\(topics.count) topics)" : "")
        if let near = Suggestion.closest(to: filter, among: topics) {
            return "; did you mean '\(near)'? (its topics: \(shown))"
        }
        return " (its topics: \(shown))"
    }

    /// Refuses, at each key, what a group that replays a recording cannot also say.
    func refuseBesideRecording(_ entries: Entries, of what: String) {
        for (key, why) in Self.keysBesideRecording {
            guard let node = entries[key] else { continue }
            report(node.mark, "\(what) replays a recording, so it takes no '\(key)': \(why)")
        }
    }
}

extension ScenarioReader {
    /// A group that replays `recording`: its topic, rate and payload stand-ins made from it (the
    /// first topic, with the recorded id as `{id}`; the mean rate; a raw payload), which say
    /// nothing of what is sent: the recording does.
    func replayingGroup(_ name: String, _ recording: RecordingSource, _ keys: GroupKeys, at node: Node) -> DeviceGroup {
        // A recorded topic is data: its braces are no placeholders.
        let first = Template.escaped(recording.messages[0].topic)
        let topic = recording.recordedID.map { first.replacing(Template.escaped($0), with: "{id}") } ?? first
        let span = (recording.messages.last?.time ?? 0) - recording.messages[0].time
        let perSecond = span > 0 ? Double(recording.messages.count) / span * recording.speed : 1
        var group = DeviceGroup(
            name: name, count: keys.count ?? 1, id: keys.id ?? Template("{name}-{index}"),
            clientID: keys.clientID ?? Template("{id}"), topic: Template(topic), publish: .every(seconds: 1 / perSecond),
            qos: keys.qos ?? .atMostOnce, connection: keys.connection ?? .perDevice, rampUp: keys.rampUp,
            payload: PayloadSpec(style: .raw, fields: []), jitter: keys.jitter, lifecycle: keys.lifecycle,
            location: SourceLocation(file: file, line: node.mark.line, column: node.mark.column),
            availability: keys.availability)
        group.recording = recording
        return group
    }
}

extension GroupKeys {
    /// Forgets what `defaults` gave of the keys a recording says itself.
    mutating func dropKeysBesideRecording() {
        topic = nil
        publish = nil
        publishesOnChange = nil
        sample = nil
        payload = nil
        retain = nil
        onChange = nil
        sparkplug = nil
        properties = nil
        stages = nil
        verify = nil
        discovery = nil
        commands = nil
        for (key, _) in ScenarioReader.keysBesideRecording { present.remove(key) }
    }
}
