/// What a broker's MQTT 5 CONNACK says a client must keep to. Every property is optional in the
/// CONNACK; one no CONNACK gave is the protocol's default, which is no limit beyond the
/// protocol's own. An MQTT 3 CONNACK has none of them.
public struct BrokerLimits: Sendable, Equatable {
    /// The largest packet the broker takes, in bytes, fixed header included (Maximum Packet
    /// Size); `nil` when it sets none.
    public var maximumPacketSize: Int?
    /// QoS 1/2 PUBLISH packets the broker takes unacknowledged at once (Receive Maximum).
    public var receiveMaximum = 65_535
    /// Topic aliases the broker takes from the client (Topic Alias Maximum); 0 for none.
    public var topicAliasMaximum = 0
    /// The keepalive the broker sets in place of the one the CONNECT asked for (Server Keep
    /// Alive), which the client's PINGREQs and its watch for silence then follow.
    public var serverKeepAlive: Duration?
    /// The client id the broker gave a connection whose CONNECT had none (Assigned Client
    /// Identifier).
    public var assignedClientIdentifier: String?
    /// The highest QoS the broker takes in a PUBLISH (Maximum QoS).
    public var maximumQoS: QoS = .exactlyOnce
    /// Whether the broker keeps retained messages (Retain Available); a retained PUBLISH to
    /// one that does not is a protocol error.
    public var retainAvailable = true

    public init() {}

    /// The keepalive the connection runs with: the broker's, or the one asked for.
    package func keepalive(asked: Duration) -> Duration { serverKeepAlive ?? asked }

    /// Whether a packet of `bytes` (fixed header included) goes to the broker.
    @inlinable package func admits(packetOf bytes: Int) -> Bool {
        maximumPacketSize.map { bytes <= $0 } ?? true
    }
}
