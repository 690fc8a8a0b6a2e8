import MQTT

/// `broker.properties`: the MQTT 5 CONNECT properties of every connection, the user properties'
/// values templates filled per connection as `username` is.
package struct BrokerConnectProperties: Sendable, Equatable {
    /// Session Expiry Interval, whole seconds.
    package var sessionExpiry: UInt32?
    /// Receive Maximum: QoS 1/2 messages the broker may have unacknowledged toward us.
    package var receiveMaximum: Int?
    /// Maximum Packet Size, bytes.
    package var maximumPacketSize: UInt32?
    /// User Property pairs: each name as written, each value a template.
    package var userProperties: [(name: String, value: Template)] = []
    /// Where `properties` is written: MQTT 3.1.1 and Azure IoT Hub are refused there (`FleetPlan`).
    package var location: SourceLocation?

    package init() {}

    /// The properties of connection `index`, `id` of group `name`, but Receive Maximum.
    package func render(name: String, index: Int, id: String) -> ConnectProperties {
        ConnectProperties(
            sessionExpiry: sessionExpiry, maximumPacketSize: maximumPacketSize,
            userProperties: userProperties.map { UserProperty(name: $0.name, value: $0.value.render(name: name, index: index, id: id)) })
    }

    package static func == (lhs: BrokerConnectProperties, rhs: BrokerConnectProperties) -> Bool {
        lhs.userProperties.elementsEqual(rhs.userProperties) { $0.name == $1.name && $0.value == $1.value }
            && lhs.sessionExpiry == rhs.sessionExpiry && lhs.receiveMaximum == rhs.receiveMaximum
            && lhs.maximumPacketSize == rhs.maximumPacketSize && lhs.location == rhs.location
    }
}
