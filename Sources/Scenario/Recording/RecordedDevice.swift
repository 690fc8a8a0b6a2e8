/// One recorded device, as `Recording.devices()` finds it: the topics one device published on,
/// told apart from the others' by the topic level that names it.
public struct RecordedDevice: Sendable, Equatable {
    /// The device's id as its topics name it (`room-1`); unique among a recording's devices.
    public var id: String
    /// Which level of its topics (from 0) is the id, in every one of them.
    public var idLevel: Int
    /// Its topics, in the order they first appear.
    public var topics: [String]
    /// Its messages, in time order.
    public var messages: [RecordedMessage]

    public init(id: String, idLevel: Int, topics: [String], messages: [RecordedMessage]) {
        self.id = id
        self.idLevel = idLevel
        self.topics = topics
        self.messages = messages
    }

    /// `topic` with its id level written `replacement` (`building/{id}/climate`).
    public func template(of topic: String, replacement: String = "{id}") -> String {
        var levels = topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if idLevel < levels.count { levels[idLevel] = replacement }
        return levels.joined(separator: "/")
    }

    /// The highest QoS its messages came at.
    public var qos: Int32 { messages.map(\.qos.rawValue).max() ?? 0 }
}
