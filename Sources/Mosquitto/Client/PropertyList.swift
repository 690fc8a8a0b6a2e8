import CMosquitto
import MQTT

/// A device's PUBLISH properties as libmosquitto's `mosquitto_property` list, made once and
/// reused for every message (`mosquitto_publish_v5` neither frees nor changes it): one list
/// without a Topic Alias, and one per alias the device's topics have been given, each made at
/// its first use. Confined, as its device is, to one event loop.
package final class PropertyList: @unchecked Sendable {
    package let properties: PublishProperties
    /// The bytes of the list in a PUBLISH, a Topic Alias aside (`PublishProperties.encodedLength`).
    package let encodedLength: Int
    /// Without a Topic Alias.
    let plain: OpaquePointer?
    /// With Topic Alias N at index N - 1.
    private var withAlias: [OpaquePointer?] = []

    /// Makes the list: `mosquitto_property_add_*` for each property. Fails, as the option
    /// `properties`, only where libmosquitto refuses a value (a string over 65,535 bytes) or
    /// memory.
    package init(_ properties: PublishProperties) throws(ClientSetupError) {
        self.properties = properties
        encodedLength = properties.encodedLength
        do { plain = try Self.make(properties, alias: nil) } catch { throw ClientSetupError(option: "properties", error: error) }
    }

    deinit {
        var list = plain
        mosquitto_property_free_all(&list)
        for var list in withAlias { mosquitto_property_free_all(&list) }
    }

    /// The list that carries Topic Alias `alias` (1 or more) too.
    func list(alias: UInt16) throws(MosquittoError) -> OpaquePointer? {
        let index = Int(alias) - 1
        if index < withAlias.count, let list = withAlias[index] { return list }
        let list = try Self.make(properties, alias: alias)
        while withAlias.count <= index { withAlias.append(nil) }
        withAlias[index] = list
        return list
    }

    /// `mosquitto_property_add_string_pair`, `_int32`, `_string`, `_byte`, `_binary` and
    /// `_int16` (the alias), in the order MQTT lists them; freed again if one fails.
    private static func make(_ properties: PublishProperties, alias: UInt16?) throws(MosquittoError) -> OpaquePointer? {
        var list: OpaquePointer?
        func add(_ rc: Int32) throws(MosquittoError) {
            do { try check(rc) } catch {
                mosquitto_property_free_all(&list)
                throw error
            }
        }
        if let format = properties.payloadFormat {
            try add(mosquitto_property_add_byte(&list, Int32(MQTT_PROP_PAYLOAD_FORMAT_INDICATOR.rawValue), format.rawValue))
        }
        if let expiry = properties.messageExpiry {
            try add(mosquitto_property_add_int32(&list, Int32(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL.rawValue), expiry))
        }
        if let alias { try add(mosquitto_property_add_int16(&list, Int32(MQTT_PROP_TOPIC_ALIAS.rawValue), alias)) }
        if let topic = properties.responseTopic {
            try add(mosquitto_property_add_string(&list, Int32(MQTT_PROP_RESPONSE_TOPIC.rawValue), topic))
        }
        if let data = properties.correlationData {
            guard data.count <= Int(UInt16.max) else {
                mosquitto_property_free_all(&list)
                throw .invalid
            }
            try add(
                data.withUnsafeBytes {
                    mosquitto_property_add_binary(
                        &list, Int32(MQTT_PROP_CORRELATION_DATA.rawValue), $0.baseAddress, UInt16(clamping: $0.count))
                })
        }
        for pair in properties.userProperties {
            try add(mosquitto_property_add_string_pair(&list, Int32(MQTT_PROP_USER_PROPERTY.rawValue), pair.name, pair.value))
        }
        if let type = properties.contentType {
            try add(mosquitto_property_add_string(&list, Int32(MQTT_PROP_CONTENT_TYPE.rawValue), type))
        }
        return list
    }
}
