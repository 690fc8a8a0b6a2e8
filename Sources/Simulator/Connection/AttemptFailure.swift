import Mosquitto

/// Why an attempt to connect came to nothing before any CONNACK accepted it, for the
/// connection the `ConnectionDriver` drives to act on.
struct AttemptFailure: Sendable {
    /// In words, for the log: "connection refused: …", "cannot connect: …", "no CONNACK within …".
    var reason: String { cause + hint }
    /// What happened, without what to check.
    var cause: String
    /// What to check, after `cause`: for credentials refused, where they are given ("; check …").
    var hint = ""
    /// The broker's refusal in its CONNACK.
    var refusal: ConnackCode?
    /// The broker took the connection (TCP, or over WebSockets the upgrade) and then closed it,
    /// or left it without a CONNACK, refusing nothing: what a broker that does not speak the
    /// CONNECT's protocol version may do (RabbitMQ 3.10 and amqtt 0.12 to MQTT 5). A TLS
    /// handshake that failed is a TLS error, not this.
    var unansweredByBroker = false

    init(reason: String, hint: String = "", refusal: ConnackCode? = nil, unansweredByBroker: Bool = false) {
        cause = reason
        self.hint = hint
        self.refusal = refusal
        self.unansweredByBroker = unansweredByBroker
    }

    /// Where credentials come from unless a connection's own come from a credentials file's row.
    static let credentialsHint = "; check the user name and password: --username, --password-file or DEVSIM_PASSWORD"

    /// What a connection speaking MQTT 5 adds to such a failure of its own.
    static let mqtt5Hint = "; the broker may not speak MQTT 5: try --protocol mqtt311"
}
