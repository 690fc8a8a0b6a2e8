/// The MQTT 5 CONNECT properties a connection sends beyond what libmosquitto's options carry
/// (`broker.properties`; Receive Maximum goes by `ClientOptions.receiveMaximum`): libmosquitto
/// 2.0.11 sends them only from `mosquitto_connect_bind_v5`, through devsim's bridge.
package struct ConnectProperties: Sendable, Equatable {
    /// Session Expiry Interval, seconds; `UInt32.max` never expires.
    package var sessionExpiry: UInt32?
    /// Maximum Packet Size: the largest packet the broker may send this connection.
    package var maximumPacketSize: UInt32?
    package var userProperties: [UserProperty] = []

    package init(sessionExpiry: UInt32? = nil, maximumPacketSize: UInt32? = nil, userProperties: [UserProperty] = []) {
        self.sessionExpiry = sessionExpiry
        self.maximumPacketSize = maximumPacketSize
        self.userProperties = userProperties
    }

    /// Whether there is anything to send.
    package var isEmpty: Bool { sessionExpiry == nil && maximumPacketSize == nil && userProperties.isEmpty }
}
