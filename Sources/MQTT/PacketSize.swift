/// The size in bytes of the packets a client sends, fixed header included, as MQTT counts it
/// against a broker's Maximum Packet Size (`BrokerLimits`). No properties are counted beyond
/// those given: devsim sends none but the ones it names.
public enum PacketSize {
    /// A PUBLISH of `payload` bytes on a topic of `topic` bytes; `properties`, the bytes of its
    /// MQTT 5 properties (their length prefix aside).
    @inlinable package static func publish(topic: Int, payload: Int, qos: QoS, version: ProtocolVersion, properties: Int = 0)
        -> Int
    {
        let packetID = qos.isAcknowledged ? 2 : 0
        return withHeader(2 + topic + packetID + propertyBytes(properties, version) + payload)
    }

    /// A SUBSCRIBE of `filters`.
    package static func subscribe(_ filters: [String], version: ProtocolVersion) -> Int {
        subscribe(filterBytes: filters.reduce(0) { $0 + subscription($1) }, version: version)
    }

    /// A SUBSCRIBE whose filters take `filterBytes` (`subscription` of each, added up).
    package static func subscribe(filterBytes: Int, version: ProtocolVersion) -> Int {
        withHeader(2 + propertyBytes(0, version) + filterBytes)
    }

    /// One filter's part of a SUBSCRIBE: its length, the filter, its options byte.
    package static func subscription(_ filter: String) -> Int { 2 + filter.utf8.count + 1 }

    /// What the fixed header adds to `remaining` bytes: its first byte and the length itself.
    @inlinable static func withHeader(_ remaining: Int) -> Int {
        1 + variableIntegerBytes(remaining) + remaining
    }

    /// MQTT 5's property list: its length (a variable byte integer), then the properties.
    @inlinable static func propertyBytes(_ bytes: Int, _ version: ProtocolVersion) -> Int {
        version == .v5 ? variableIntegerBytes(bytes) + bytes : 0
    }

    /// The bytes of `value` as a variable byte integer: seven bits a byte.
    @inlinable static func variableIntegerBytes(_ value: Int) -> Int {
        switch value {
        case ..<128: 1
        case ..<16_384: 2
        case ..<2_097_152: 3
        default: 4
        }
    }
}
