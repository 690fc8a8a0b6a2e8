import MQTT
import Signals

/// The keys a device group may set, each optional: what one group sets, or what a `defaults:`
/// mapping sets for every group that does not set it itself.
struct GroupKeys {
    /// Keys that were written, valid or not: a group that lacks `topic` is not told it is
    /// missing when `defaults` gives one, even a wrong one (that one has its own message).
    var present: Set<String> = []
    var count: Int?
    var id: Template?
    var clientID: Template?
    var topic: Template?
    var sample: Rate?
    var publish: Rate?
    var qos: QoS?
    var retain: Bool?
    var connection: ConnectionMode?
    var rampUp: Rate?
    var jitter: StartJitter?
    var lifecycle: Lifecycle?
    var stages: [Stage]?
    var payload: PayloadSpec?
    var verify: VerifyFields?
    var availability: Availability?
    var discovery: Discovery?
    var commands: Commands?
    var onChange: OnChange?
    var sparkplug: SparkplugNodes?
    var properties: MessageProperties?
    var recording: RecordingSource?
    var script: DeviceScript?
    /// `publish: onChange`: once a second, watching the state fields.
    var publishesOnChange: Bool?

    /// These keys, with every key not written here taken from `defaults`. Keys are taken whole:
    /// a group's `payload` replaces the default `payload`, it is not merged with it.
    func filled(from defaults: GroupKeys) -> GroupKeys {
        var keys = self
        keys.present.formUnion(defaults.present)
        for key in Self.table where !present.contains(key.name) {
            key.inherit(&keys, defaults)
        }
        return keys
    }
}

extension GroupKeys {
    /// One key of a device group: its name in the file, how the reader reads its value, and the
    /// field above that keeps it.
    struct Key: Sendable {
        let name: String
        /// Reads the key's value (not null) into the keys; the text names the group in messages.
        let read: @Sendable (ScenarioReader, Node, String, inout GroupKeys) -> Void
        /// Takes the key's value from `defaults` (the second) into a group that does not write it.
        let inherit: @Sendable (inout GroupKeys, GroupKeys) -> Void

        /// A key kept in one field.
        static func value<T>(
            _ name: String, _ field: WritableKeyPath<GroupKeys, T?> & Sendable,
            _ read: @escaping @Sendable (ScenarioReader, Node, String) -> T?
        ) -> Key {
            Key(
                name: name, read: { reader, node, what, keys in keys[keyPath: field] = read(reader, node, what) },
                inherit: { keys, defaults in keys[keyPath: field] = defaults[keyPath: field] })
        }
    }

    /// Every key a device group takes besides its `name` (which is no default), in the order
    /// they are read and messages list them: the one table by which a group and `defaults` are
    /// read (`ScenarioReader.groupKeys`), their keys checked (`ScenarioKeys.group`, with hints
    /// for unknown ones) and a group filled from `defaults`. A new key is a line here, a field
    /// above, and its use in `DeviceGroup`.
    static let table: [Key] = [
        .value("count", \.count) { reader, node, _ in reader.integer(node, "count", in: 1...ScenarioReader.maximumCount) },
        .value("id", \.id) { reader, node, _ in reader.template(node, "id", allowID: false) },
        .value("clientId", \.clientID) { reader, node, _ in reader.template(node, "clientId") },
        .value("topic", \.topic) { reader, node, _ in reader.topic(node, "topic") },
        .value("sample", \.sample) { reader, node, _ in reader.rate(node, "sample", allowMax: false) },
        // A rate, or `onChange`: once a second, sent when a state changed.
        Key(
            name: "publish",
            read: { reader, node, _, keys in
                if node.scalarText == "onChange" {
                    keys.publish = .every(seconds: 1)
                    keys.publishesOnChange = true
                } else {
                    keys.publish = reader.rate(node, "publish")
                }
            },
            inherit: { keys, defaults in
                keys.publish = defaults.publish
                keys.publishesOnChange = defaults.publishesOnChange
            }),
        .value("qos", \.qos) { reader, node, _ in reader.qos(node) },
        .value("retain", \.retain) { reader, node, _ in reader.bool(node, "retain") },
        .value("connection", \.connection) { reader, node, _ in reader.connection(node) },
        .value("rampUp", \.rampUp) { reader, node, _ in reader.rate(node, "rampUp") },
        .value("jitter", \.jitter) { reader, node, _ in reader.jitter(node) },
        .value("lifecycle", \.lifecycle) { reader, node, _ in reader.lifecycle(node) },
        .value("stages", \.stages) { reader, node, _ in reader.stages(node, ofGroup: true) },
        .value("payload", \.payload) { reader, node, what in reader.payload(node, of: what) },
        .value("verify", \.verify) { reader, node, _ in reader.verifyFields(node) },
        .value("availability", \.availability) { reader, node, _ in reader.availability(node) },
        .value("discovery", \.discovery) { reader, node, _ in reader.discovery(node) },
        .value("commands", \.commands) { reader, node, _ in reader.commands(node) },
        .value("onChange", \.onChange) { reader, node, _ in reader.onChange(node) },
        .value("sparkplug", \.sparkplug) { reader, node, _ in reader.sparkplug(node) },
        .value("properties", \.properties) { reader, node, _ in reader.messageProperties(node) },
        .value("recording", \.recording) { reader, node, _ in reader.recording(node) },
        .value("script", \.script) { reader, node, _ in reader.script(node) },
    ]
}
