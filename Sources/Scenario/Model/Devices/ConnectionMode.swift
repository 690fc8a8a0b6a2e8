/// `connection:` of a device group: how its devices share MQTT connections.
public enum ConnectionMode: Sendable, Equatable {
    /// One MQTT connection per device.
    case perDevice
    /// The group's devices multiplexed over this many connections.
    case shared(Int)
}
