import CMosquitto
import MQTT

/// A device's PUBLISH properties as libmosquitto's `mosquitto_property` list, made once and
/// reused for every message (`mosquitto_publish_v5` neither frees nor changes it): one list
/// without a Topic Alias, and one per alias the device's topics have on the connection, each
/// made at its first use there. Confined, as its device is, to one event loop.
package final class PropertyList {
    package let properties: PublishProperties
    /// The bytes of the list in a PUBLISH, a Topic Alias aside (`PublishProperties.encodedLength`).
    package let encodedLength: Int
    /// Without a Topic Alias.
    let plain: OpaquePointer?
    /// With a Topic Alias, by alias: those of connection `aliasesOf` alone, freed at the next
    /// connection's first use, whose aliases are new. As many as the device's topics, whatever
    /// the aliases' numbers: on a shared connection they reach the thousands, and a list per
    /// number up to its own made the fleet's memory grow as the square of its devices.
    private var withAlias: [UInt16: OpaquePointer] = [:]
    private var aliasesOf = 0

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
        freeAliasLists()
    }

    /// The list that carries Topic Alias `alias` (1 or more) too, on the client's `connection`
    /// (`TopicAliases.connection`).
    func list(alias: UInt16, connection: Int) throws(MosquittoError) -> OpaquePointer? {
        if connection != aliasesOf {
            freeAliasLists()
            aliasesOf = connection
        }
        if let list = withAlias[alias] { return list }
        let list = try Self.make(properties, alias: alias)
        withAlias[alias] = list
        return list
    }

    /// The lists with an alias it holds now.
    var aliasListCount: Int { withAlias.count }

    /// `mosquitto_property_free_all` of each list with an alias.
    private func freeAliasLists() {
        for list in withAlias.values {
            var list: OpaquePointer? = list
            mosquitto_property_free_all(&list)
        }
        withAlias.removeAll(keepingCapacity: true)
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
