import MQTT

/// A recording of MQTT traffic (`devsim record`), a plain text file a person can read and edit:
/// JSON Lines, one message an object per line, `#` lines and blank lines skipped. The format is
/// in docs/recordings.md:
///
///     # devsim recording
///     {"t":0.25,"topic":"building/room-1/climate","qos":1,"payload":"{\"temperature\":21.5}"}
///     {"t":0.5,"topic":"camera/7/frame","payloadBase64":"/9j/4AAQ"}
public struct Recording: Sendable, Equatable {
    /// In time order; messages written with the same time keep the file's order.
    public var messages: [RecordedMessage]

    public init(messages: [RecordedMessage]) {
        self.messages = messages
    }

    /// Its topics, each once, in the order they first appear.
    public var topics: [String] {
        var seen = Set<String>()
        return messages.compactMap { seen.insert($0.topic).inserted ? $0.topic : nil }
    }

    /// From the first message to the last, in seconds; 0 for fewer than two.
    public var span: Double {
        guard let first = messages.first, let last = messages.last else { return 0 }
        return last.time - first.time
    }
}
