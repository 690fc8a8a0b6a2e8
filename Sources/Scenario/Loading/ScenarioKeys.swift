import Signals

/// Every key a scenario file may hold, by the mapping that holds it: the one list of them. The
/// loader reads each mapping against its list (another key is an error with a hint), and
/// `ReferenceKeysTests` checks the reference, `docs/scenarios.md`, against the same lists both
/// ways. A new key is a name here (a device group's: a line of `GroupKeys.table`), its reading,
/// and an example of it in the reference.
package struct ScenarioKeys: Sendable {
    /// Where the mapping sits, as the reference and messages name it: `broker.tls`.
    package let path: String
    package let keys: [String]

    package static let top = ScenarioKeys(
        path: "the scenario",
        keys: ["name", "broker", "offline", "control", "stages", "defaults", "include", "devices", "subscribers", "verify"])
    package static let stage = ScenarioKeys(path: "stages[]", keys: ["duration", "rate", "multiplier", "devices", "disconnect"])
    package static let control = ScenarioKeys(path: "control", keys: ["topic"])
    /// The closed-loop check's own identity (`run --verify`), and its TLS files.
    package static let verifier = ScenarioKeys(path: "verify", keys: ["username", "password", "clientId", "tls"])
    package static let verifierTLS = ScenarioKeys(path: "verify.tls", keys: tls.keys)
    package static let broker = ScenarioKeys(
        path: "broker",
        keys: [
            "host", "port", "protocol", "keepalive", "cleanSession", "username", "password", "tls", "will", "reconnect",
            "ackTimeout", "onAckTimeout", "url", "transport", "path", "credentials", "azureIoTHub", "bind", "hosts", "spread",
            "properties",
        ])
    /// The MQTT 5 CONNECT properties of every connection (`BrokerConnectProperties`).
    package static let brokerProperties = ScenarioKeys(
        path: "broker.properties", keys: ["sessionExpiry", "receiveMaximum", "maximumPacketSize", "userProperties"])
    package static let tls = ScenarioKeys(path: "broker.tls", keys: ["ca", "certificate", "key", "insecure", "alpn"])
    /// Azure IoT Hub: each device's identity and SAS token (`AzureIoTHub`).
    package static let azureIoTHub = ScenarioKeys(
        path: "broker.azureIoTHub", keys: ["hub", "deviceKey", "groupKey", "tokenLifetime", "apiVersion"])
    package static let will = ScenarioKeys(path: "broker.will", keys: ["topic", "message", "qos", "retain"])
    package static let reconnect = ScenarioKeys(path: "broker.reconnect", keys: ["initial", "max"])
    package static let offline = ScenarioKeys(path: "offline", keys: ["policy", "maxMessages", "maxBytes"])
    /// A device group's keys, and `defaults`' (which sets any of them for the groups after it):
    /// its name, and those of `GroupKeys.table`, which reads them.
    package static let group = ScenarioKeys(path: "devices[]", keys: ["name"] + GroupKeys.table.map(\.name))
    /// A subscriber group's keys (`subscribers:`), spelt as a device group's where they mean
    /// the same, and as the broker's `cleanSession`, `username` and `password`.
    package static let subscriber = ScenarioKeys(
        path: "subscribers[]", keys: ["name", "count", "clientId", "topics", "qos", "cleanSession", "rampUp", "username", "password"])
    package static let lifecycle = ScenarioKeys(path: "devices[].lifecycle", keys: ["online", "offline", "jitter"])
    package static let verify = ScenarioKeys(path: "devices[].verify", keys: ["sequence", "timestamp"])
    package static let availability = ScenarioKeys(path: "devices[].availability", keys: ["topic", "online", "offline"])
    package static let discovery = ScenarioKeys(path: "devices[].discovery", keys: ["type", "prefix", "manufacturer", "model"])
    package static let commands = ScenarioKeys(path: "devices[].commands", keys: ["topic", "response"])
    package static let onChange = ScenarioKeys(path: "devices[].onChange", keys: ["fields", "heartbeat"])
    package static let command = ScenarioKeys(path: "a field's command", keys: ["setpoint"])
    package static let connection = ScenarioKeys(path: "devices[].connection", keys: ["shared"])
    package static let sparkplug = ScenarioKeys(
        path: "devices[].sparkplug", keys: ["groupId", "edgeNodeId", "nodes", "reporting", "deadband", "primaryHost"])
    /// A device group's MQTT 5 PUBLISH properties (`MessageProperties`).
    package static let properties = ScenarioKeys(
        path: "devices[].properties",
        keys: [
            "userProperties", "messageExpiry", "contentType", "payloadFormatIndicator", "responseTopic", "correlationData", "topicAlias",
        ])
    /// A device group's recording to replay (`RecordingSource`).
    package static let recording = ScenarioKeys(
        path: "devices[].recording", keys: ["file", "topics", "recordedID", "speed", "loop", "timestamps"])
    package static let payload = ScenarioKeys(path: "devices[].payload", keys: ["style", "fields", "template", "size"])
    /// A field's keys besides its generator (one of `Generators.keys`).
    package static let modifiers = ScenarioKeys(
        path: "a field", keys: ["decimals", "noise", "min", "max", "faults", "unit", "deviceClass", "stateClass", "command"])
    package static let faults = ScenarioKeys(path: "a field's faults", keys: FieldFaults.kinds)
    package static let spike = ScenarioKeys(path: "faults.spike", keys: ["probability", "magnitude"])
    package static let stuck = ScenarioKeys(path: "faults.stuck", keys: ["probability", "duration"])
    package static let dropout = ScenarioKeys(path: "faults.dropout", keys: ["probability", "mode"])
    package static let drift = ScenarioKeys(path: "faults.drift", keys: ["perHour"])

    package static let all = [
        top, stage, broker, brokerProperties, azureIoTHub, tls, will, reconnect, offline, control, verifier, verifierTLS, group, subscriber,
        lifecycle,
        verify,
        availability, discovery, commands, command, onChange, connection, sparkplug, payload, properties, recording, modifiers, faults,
        spike, stuck,
        dropout,
        drift,
    ]
}
