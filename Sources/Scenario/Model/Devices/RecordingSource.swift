import MQTT

/// A device group's `recording:`: each of its devices publishes again what one recorded device
/// sent, with its recorded timing (`docs/recordings.md`). Loaded with the scenario, so a bad
/// recording is reported as the scenario's own problems are.
public struct RecordingSource: Sendable {
    /// What `timestamps:` does to the timestamps in each JSON payload.
    public enum Timestamps: String, Sendable, CaseIterable {
        /// Sent as recorded.
        case keep
        /// Each rewritten to the time the message is sent, in its recorded form.
        case now
    }

    /// The recording's path, relative to the scenario's directory when written so.
    public var file: String
    /// `topics:` as written: which of the recording's messages are the device's; empty for all.
    public var topics: [String]
    /// The recorded device's id, replaced in every topic and text payload by each copy's id.
    public var recordedID: String?
    /// 2 plays twice as fast as recorded.
    public var speed: Double
    /// Starts again after the last message.
    public var loop: Bool
    public var timestamps: Timestamps
    /// The recording's messages `topics` selects, in time order.
    public var messages: [RecordedMessage]

    public init(
        file: String, topics: [String] = [], recordedID: String? = nil, speed: Double = 1, loop: Bool = false,
        timestamps: Timestamps = .keep, messages: [RecordedMessage]
    ) {
        self.file = file
        self.topics = topics
        self.recordedID = recordedID
        self.speed = speed
        self.loop = loop
        self.timestamps = timestamps
        self.messages = messages
    }

    /// Its messages' topics, each once, in the order they first appear.
    public var recordedTopics: [String] { Recording(messages: messages).topics }
}

/// A group's description is dumped whole to tell a reload's changes (`GroupPlan`): a recording
/// of a million messages is summed up, not spelt out.
extension RecordingSource: CustomReflectable {
    public var customMirror: Mirror {
        var hasher = Hasher()
        for message in messages {
            hasher.combine(message.time)
            hasher.combine(message.topic)
            hasher.combine(message.retain)
            hasher.combine(message.payload)
        }
        return Mirror(
            self,
            children: [
                "file": file, "topics": topics, "recordedID": recordedID as Any, "speed": speed, "loop": loop,
                "timestamps": timestamps.rawValue, "messages": messages.count, "digest": hasher.finalize(),
            ])
    }
}
