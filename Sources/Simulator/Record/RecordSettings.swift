import Glibc
import MQTT
import Scenario

/// What `devsim record` asks of the recorder: the broker and who to be there, the topic
/// filters, when to stop, and where the recording goes.
package struct RecordSettings: Sendable {
    /// The broker as `--url` names it (host, port, transport, TLS on or off, a user name).
    package var url: BrokerURL?
    package var host: String?
    package var port: Int?
    package var username: String?
    package var password: String?
    /// `--password-file`: read by `Record` before anything connects, over `password`.
    package var passwordFile: String?
    /// `--ca`, `--cert`, `--key`, `--insecure`: TLS with these files; `nil` when no such flag is
    /// given. A `mqtts://` or `wss://` URL has TLS with the system's trusted certificates then.
    package var tls: TLSSettings?
    package var protocolVersion: ProtocolVersion = .v5
    /// `nil`: `devsim-record-PID-RANDOM`.
    package var clientID: String?
    package var filters: [TopicFilter] = []
    /// The subscriptions' QoS: the most a message keeps of its publisher's.
    package var qos: QoS = .exactlyOnce
    /// From the subscription granted; `nil`: until a signal or `messages`.
    package var duration: Duration?
    /// Stop after this many messages recorded.
    package var messages: Int?
    /// The recording's file, made (or emptied) when the subscriptions are first granted.
    package var path: String
    /// Files made from a recording this one replaces (`--force`): removed when it begins.
    package var replacing: [String] = []
    package var connectTimeout = Defaults.connectTimeout
    package var connackTimeout = Defaults.connackTimeout
    /// Between status lines; `nil` for none.
    package var statsInterval: Duration? = Defaults.statsInterval
    /// On a terminal: the status line, redrawn in place (`RunSettings.liveStatus`).
    package var liveStatus: (@Sendable (String) -> Void)?
    package var logConnectionEvents = false

    package init(path: String) {
        self.path = path
    }

    /// The broker as the recording's header names it: `mqtt://127.0.0.1:1883`, no user.
    package var source: String {
        if let url {
            let host = url.host.contains(":") ? "[\(url.host)]" : url.host
            return "\(url.scheme.rawValue)://\(host):\(url.port)\(url.path ?? "")"
        }
        let host = self.host ?? Defaults.host
        return "\(tls == nil ? "mqtt" : "mqtts")://\(host.contains(":") ? "[\(host)]" : host):\(port ?? Defaults.port)"
    }

    /// The subscriber's connection: a clean session (what is published while it is away is not
    /// queued for it, so a recording's times are when messages were sent), and under MQTT 5 the
    /// broker's window of unacknowledged messages towards it as wide as it goes.
    var clientOptions: ClientOptions {
        let transport = url?.scheme.transport ?? .tcp
        let tls = self.tls ?? (url?.scheme.isSecure == true ? TLSSettings() : nil)
        let defaultPort = transport == .websockets ? (tls == nil ? Defaults.webSocketPort : Defaults.secureWebSocketPort) : Defaults.port
        var options = ClientOptions(
            host: url?.host ?? host ?? Defaults.host, port: Int32(url?.port ?? port ?? defaultPort),
            clientID: clientID ?? protocolVersion.clientID("devsim-record-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"),
            cleanSession: true, keepalive: Defaults.keepalive, protocolVersion: protocolVersion,
            username: username ?? url?.username, password: password, tls: tls, maxInFlight: Int32(Defaults.maxInFlight))
        if transport == .websockets { options.webSocketPath = url?.path ?? BrokerURL.defaultPath }
        options.reportsPublishes = false
        if protocolVersion == .v5 { options.receiveMaximum = 65535 }
        return options
    }
}
