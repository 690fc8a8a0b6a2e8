import MQTT
import Signals

/// The keys a device group may set, each optional: what one group sets, or what a `defaults:`
/// mapping sets for every group that does not set it itself.
struct GroupKeys {
    /// Every key a device group takes besides its `name`, in the order messages list them.
    static let names = ScenarioKeys.group.keys.filter { $0 != "name" }

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
    /// `publish: onChange`: once a second, watching the state fields.
    var publishesOnChange: Bool?

    /// These keys, with every key not written here taken from `defaults`. Keys are taken whole:
    /// a group's `payload` replaces the default `payload`, it is not merged with it.
    func filled(from defaults: GroupKeys) -> GroupKeys {
        var keys = self
        keys.present.formUnion(defaults.present)
        func take<T>(_ key: String, _ path: WritableKeyPath<GroupKeys, T?>) {
            if !present.contains(key) { keys[keyPath: path] = defaults[keyPath: path] }
        }
        take("count", \.count)
        take("id", \.id)
        take("clientId", \.clientID)
        take("topic", \.topic)
        take("sample", \.sample)
        take("publish", \.publish)
        take("qos", \.qos)
        take("retain", \.retain)
        take("connection", \.connection)
        take("rampUp", \.rampUp)
        take("jitter", \.jitter)
        take("lifecycle", \.lifecycle)
        take("stages", \.stages)
        take("payload", \.payload)
        take("verify", \.verify)
        take("availability", \.availability)
        take("discovery", \.discovery)
        take("commands", \.commands)
        take("onChange", \.onChange)
        take("publish", \.publishesOnChange)
        return keys
    }
}
