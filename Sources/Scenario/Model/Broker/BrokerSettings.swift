import MQTT

/// Where and how to connect. Every field is optional: flags and environment override the file,
/// and the simulator supplies defaults for what nobody set.
public struct BrokerSettings: Sendable, Equatable {
    public var host: String?
    public var port: Int?
    public var `protocol`: ProtocolVersion?
    package var keepalive: Duration?
    package var cleanSession: Bool?
    /// Templates, filled per device (`"{id}"`, `"pw-{id}"`, `"{token}"`): see `Template`.
    public var username: String?
    public var password: String?
    /// Its `certificate` and `key` may be templates too (`"certs/{id}.pem"`).
    package var tls: TLSSettings?
    /// Each device's own secrets, from a file: see `CredentialsFile`.
    package var credentials: CredentialsFile?
    package var will: Will?
    package var reconnect: ReconnectSettings?
    /// How long a QoS 1/2 message may wait for its PUBACK or PUBCOMP before it counts as timed
    /// out; `nil` for no limit.
    package var ackTimeout: Duration?
    /// What a timed-out message does to its connection; `nil` means `.count`.
    package var onAckTimeout: AckTimeoutAction?
    /// TCP (nil) or WebSockets, from `transport` or a `url`.
    package var transport: BrokerTransport?
    /// The WebSocket's path, from `path` or a ws:// `url`.
    package var path: String?
    /// Azure IoT Hub: each device as itself, with a SAS token (`broker.azureIoTHub`).
    package var azureIoTHub: AzureIoTHub?
    /// The local source addresses of the connections (`broker.bind`).
    package var bind: BindAddresses?
    /// The nodes of a cluster, in place of `host` (`broker.hosts`).
    package var hosts: BrokerHosts?
    /// MQTT 5 CONNECT properties (`broker.properties`).
    package var properties: BrokerConnectProperties?

    package init(
        host: String? = nil, port: Int? = nil, protocol: ProtocolVersion? = nil,
        keepalive: Duration? = nil, cleanSession: Bool? = nil, username: String? = nil,
        password: String? = nil, tls: TLSSettings? = nil, will: Will? = nil,
        reconnect: ReconnectSettings? = nil, ackTimeout: Duration? = nil, onAckTimeout: AckTimeoutAction? = nil
    ) {
        self.host = host
        self.port = port
        self.protocol = `protocol`
        self.keepalive = keepalive
        self.cleanSession = cleanSession
        self.username = username
        self.password = password
        self.tls = tls
        self.will = will
        self.reconnect = reconnect
        self.ackTimeout = ackTimeout
        self.onAckTimeout = onAckTimeout
    }
}
