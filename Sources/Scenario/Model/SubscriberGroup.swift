import MQTT

/// One `subscribers:` entry: `count` MQTT connections of their own that subscribe to `topics`
/// after every CONNACK and count what the broker sends them, beside the devices that publish.
/// A group whose filters are shared subscriptions (`$share/NAME/…`) receives each message once
/// between its members; any other group receives each message on every member.
public struct SubscriberGroup: Sendable, Equatable {
    public var name: String
    /// Connections.
    public var count: Int
    /// Filled per connection with `{name}` and `{index}` (1-based).
    package var clientID: Template
    /// Every filter shared, or none (the reader refuses a mix): see `isShared`.
    package var topics: [TopicFilter]
    /// The QoS asked for in SUBSCRIBE: a message arrives at the lower of it and its publish's.
    public var qos: QoS
    /// `nil` for the broker's `cleanSession` (true unless it says).
    package var cleanSession: Bool?
    /// How fast the group's connections are opened; `nil` for the default rate.
    package var rampUp: Rate?
    /// Its own user on the broker (a dashboard's, with its own ACL), templates filled per
    /// connection as `clientId` is; `nil` for the broker's, filled with the client id as `{id}`.
    package var username: String?
    package var password: String?
    /// Where the group is written.
    public var location: SourceLocation?

    package init(
        name: String, count: Int = 1, clientID: Template = SubscriberGroup.defaultClientID, topics: [TopicFilter],
        qos: QoS = .atMostOnce, cleanSession: Bool? = nil, rampUp: Rate? = nil, location: SourceLocation? = nil
    ) {
        self.name = name
        self.count = count
        self.clientID = clientID
        self.topics = topics
        self.qos = qos
        self.cleanSession = cleanSession
        self.rampUp = rampUp
        self.location = location
    }

    /// Whether the broker deals the group's messages out among its members (`$share/…`).
    public var isShared: Bool { topics.contains(where: \.isShared) }

    /// Member `index`'s client id (1-based): the group's `clientId` filled, or the default, which
    /// devsim makes, within `version`'s limit (`ProtocolVersion.clientID`).
    package func clientID(index: Int, version: ProtocolVersion) -> String {
        let id = clientID.render(name: name, index: index, id: nil)
        return clientID == Self.defaultClientID ? version.clientID(id) : id
    }

    /// `{name}-{index}`, as a device group's ids are made.
    package static let defaultClientID = Template("{name}-{index}")
}
