import CMosquitto
import MQTT

/// A connection's CONNECT properties as libmosquitto's `mosquitto_property` list, made once and
/// given to every attempt's `mosquitto_connect_bind_v5` (libmosquitto 2.0.11 keeps none between
/// attempts, and neither frees nor changes the list).
final class ConnectPropertyList {
    let pointer: OpaquePointer?

    /// Makes the list: `mosquitto_property_add_int32` (Session Expiry Interval, Maximum Packet
    /// Size) and `mosquitto_property_add_string_pair` (User Property); freed again if one
    /// fails, as the option `properties`.
    init(_ properties: ConnectProperties) throws(ClientSetupError) {
        var list: OpaquePointer?
        func add(_ rc: Int32) throws(ClientSetupError) {
            do { try check(rc) } catch {
                mosquitto_property_free_all(&list)
                throw ClientSetupError(option: "properties", error: error)
            }
        }
        if let expiry = properties.sessionExpiry {
            try add(mosquitto_property_add_int32(&list, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), expiry))
        }
        if let size = properties.maximumPacketSize {
            try add(mosquitto_property_add_int32(&list, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue), size))
        }
        for pair in properties.userProperties {
            try add(mosquitto_property_add_string_pair(&list, Int32(MQTT_PROP_USER_PROPERTY.rawValue), pair.name, pair.value))
        }
        pointer = list
    }

    /// `mosquitto_property_free_all`.
    deinit {
        var list = pointer
        mosquitto_property_free_all(&list)
    }
}
