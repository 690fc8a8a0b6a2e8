/// Everything a connection needs before its first CONNECT: what the simulator decides and a
/// client (libmosquitto's, in `Mosquitto`) carries out.
public struct ClientOptions: Sendable, Equatable {
    public var host: String
    public var port: Int32
    /// `nil` lets libmosquitto make a random one (MQTT 3) or the broker assign one (MQTT 5).
    package var clientID: String?
    package var cleanSession: Bool
    /// Whole seconds, 0 for none; libmosquitto refuses values from 1 to 4 s.
    package var keepalive: Duration
    package var protocolVersion: ProtocolVersion
    public var username: String?
    public var password: String?
    package var will: Will?
    package var tls: TLSSettings?
    /// MQTT over a WebSocket at this path (`broker.transport: websockets`), or nil for plain
    /// TCP. devsim's bridge then carries libmosquitto's bytes, and TLS is the bridge's.
    package var webSocketPath: String?
    /// Unacknowledged QoS 1/2 messages libmosquitto may have at once.
    public var maxInFlight: Int32
    /// Whether `didPublish` reports each message: a PUBACK or PUBCOMP for QoS 1/2, only the
    /// write for QoS 0, whose publishers can go without.
    package var reportsPublishes = true
    /// MQTT 5: unacknowledged QoS 1/2 messages the broker may send us at once (the CONNECT's
    /// Receive Maximum, which libmosquitto sends as 20 unless told); ignored by MQTT 3, for
    /// which the broker decides alone.
    package var receiveMaximum: Int32 = 20
    /// Azure IoT Hub: the password is a SAS token made from this at each connect, and renewed by
    /// a planned reconnect (`password` then holds the last token made).
    package var sasToken: SASTokenSource?
    /// The local address to connect from (`broker.bind`), or nil for the kernel's choice.
    package var bindAddress: String?
    /// A cluster's nodes (`broker.hosts`), `host` and `port` among them: an attempt that fails
    /// goes to the next one; empty for one broker.
    package var hosts: [BrokerAddress] = []
    /// MQTT 5 CONNECT properties (`broker.properties`), or nil: with them, each attempt's CONNECT
    /// goes through devsim's bridge, raw (`BrokerBridge`), and TLS is the bridge's.
    package var connectProperties: ConnectProperties?

    package init(
        host: String, port: Int32, clientID: String? = nil,
        cleanSession: Bool, keepalive: Duration, protocolVersion: ProtocolVersion,
        username: String? = nil, password: String? = nil, will: Will? = nil, tls: TLSSettings? = nil,
        maxInFlight: Int32
    ) {
        self.host = host
        self.port = port
        self.clientID = clientID
        self.cleanSession = cleanSession
        self.keepalive = keepalive
        self.protocolVersion = protocolVersion
        self.username = username
        self.password = password
        self.will = will
        self.tls = tls
        self.maxInFlight = maxInFlight
    }

    /// The TLS libmosquitto itself makes: none through the bridge (a WebSocket, or CONNECT
    /// properties), which makes it.
    package var libraryTLS: TLSSettings? { usesBridge ? nil : tls }

    /// libmosquitto connects to devsim's bridge, which connects to the broker.
    package var usesBridge: Bool { webSocketPath != nil || connectProperties != nil }
}
