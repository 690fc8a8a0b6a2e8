import MQTT

/// The closed-loop check's own identity on the broker (`verify:` of a scenario), for a broker
/// that lets each device read only its own topics: without it, `run --verify` subscribes as the
/// first device of each broker does. Every field is optional.
package struct VerifierSettings: Sendable, Equatable {
    /// Its user name and password; a user name given without a password connects with none.
    package var username: String?
    package var password: String?
    /// Its client ids: `{index}` is the connection's number (from 1), `{name}` the scenario's
    /// name; without `{index}`, a second connection and later ones add `-2`, `-3`…
    package var clientID: Template?
    /// TLS of its own, with a client certificate a broker takes as its identity.
    package var tls: TLSSettings?

    package init(username: String? = nil, password: String? = nil, clientID: Template? = nil, tls: TLSSettings? = nil) {
        self.username = username
        self.password = password
        self.clientID = clientID
        self.tls = tls
    }
}
