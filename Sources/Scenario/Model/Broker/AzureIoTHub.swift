/// `broker.azureIoTHub`: every device connects to an Azure IoT Hub as itself, with a SAS token
/// signed by its own key and made anew at each connect (the hub closes a connection whose
/// token expires, and MQTT 3.1.1 cannot re-authenticate in place, so the token is renewed by a
/// planned reconnect before that). What the block implies (client id, user name, host, port,
/// TLS, protocol) is in `docs/scenarios.md`.
package struct AzureIoTHub: Sendable, Equatable {
    /// The hub's host name, `NAME.azure-devices.net`.
    package var hub: String
    package var key: Key
    /// How long each token is valid; it is renewed at 80 % of it.
    package var tokenLifetime: Duration
    package var apiVersion: String

    /// A key every device signs with, or a DPS enrollment group's, from which each device's is
    /// derived (HMAC-SHA256 of its id). Base64, checked at load (`keyProblem`).
    package enum Key: Sendable, Equatable {
        case device(String)
        case group(String)
    }

    package static let defaultLifetime: Duration = .seconds(3600)
    /// Shorter lifetimes are refused: a token renewed every few seconds is a reconnection storm,
    /// not a fleet (Azure's SDKs default to an hour). Ten seconds still lets a test see a renewal.
    package static let minimumLifetime: Duration = .seconds(10)
    package static let defaultAPIVersion = "2021-04-12"
    /// MQTT over TLS, Azure's only port for MQTT over TCP.
    package static let port = 8883
    /// The hub keeps no connection idle longer than 1.5 × keepalive, at most 1767 s.
    package static let maximumKeepalive: Duration = .seconds(1177)
    /// Where a device sends telemetry: a group's `topic` when it has none (a property bag may
    /// follow the last `/`).
    package static let telemetryTopic = Template("devices/{id}/messages/events/")
    /// The largest device-to-cloud message the hub takes.
    package static let maximumMessageBytes = 256 * 1024

    package init(hub: String, key: Key, tokenLifetime: Duration = defaultLifetime, apiVersion: String = defaultAPIVersion) {
        self.hub = hub
        self.key = key
        self.tokenLifetime = tokenLifetime
        self.apiVersion = apiVersion
    }

    /// The user name of device `id`: `<hub>/<id>/?api-version=<version>`.
    package func username(id: String) -> String { "\(hub)/\(id)/?api-version=\(apiVersion)" }

    /// What a token of device `id` grants access to: `<hub>/devices/<id>`.
    package func resource(id: String) -> String { "\(hub)/devices/\(id)" }

    /// Whether `host` is the hub itself, not a stand-in broker for a rehearsal.
    package func isHub(_ host: String) -> Bool { host.lowercased() == hub.lowercased() }

    /// Why `text` is no base64 key (Azure's keys are base64 of 32 or 64 bytes), or nil when it is
    /// one, with or without its padding.
    package static func keyProblem(_ text: String) -> String? {
        var body = Substring(text)
        var padding = 0
        while body.last == "=", padding < 2 {
            body.removeLast()
            padding += 1
        }
        if body.isEmpty { return "it is empty" }
        if let bad = body.first(where: { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "/")) }) {
            return "'\(bad)' is not a base64 character"
        }
        let missing = (4 - body.count % 4) % 4
        if missing == 3 || (padding != 0 && padding != missing) { return "its length is not that of base64" }
        return nil
    }
}
