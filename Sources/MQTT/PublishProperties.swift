/// The MQTT 5 properties a device's every PUBLISH carries (a group's `properties:`), filled in
/// for the device: what the client turns once into libmosquitto's property list.
package struct PublishProperties: Sendable, Equatable {
    /// User Property pairs, in the order written.
    package var userProperties: [UserProperty] = []
    /// Message Expiry Interval, in seconds.
    package var messageExpiry: UInt32?
    package var contentType: String?
    package var payloadFormat: PayloadFormat?
    /// A topic name, no wildcards.
    package var responseTopic: String?
    package var correlationData: [UInt8]?
    /// Each topic is sent once per connection, then by its Topic Alias (QoS 0 only).
    package var topicAlias = false

    package init() {}

    /// The bytes of these properties in a PUBLISH (their length prefix aside), the Topic Alias
    /// aside: what `PacketSize.publish` counts as `properties`.
    package var encodedLength: Int {
        // Each property: its identifier (one byte for these), then its value; a string or
        // binary value has a two-byte length before it.
        var bytes = 0
        for pair in userProperties { bytes += 1 + 2 + pair.name.utf8.count + 2 + pair.value.utf8.count }
        if messageExpiry != nil { bytes += 1 + 4 }
        if let contentType { bytes += 1 + 2 + contentType.utf8.count }
        if payloadFormat != nil { bytes += 1 + 1 }
        if let responseTopic { bytes += 1 + 2 + responseTopic.utf8.count }
        if let correlationData { bytes += 1 + 2 + correlationData.count }
        return bytes
    }

    /// A Topic Alias property's bytes: its identifier and a two-byte alias.
    package static let topicAliasLength = 3
}

/// One User Property: a name and a value, both UTF-8 strings.
package struct UserProperty: Sendable, Equatable {
    package var name: String
    package var value: String

    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// The Payload Format Indicator: what a receiver may take the payload's bytes to be.
package enum PayloadFormat: UInt8, Sendable, CaseIterable {
    /// Unspecified bytes (0 on the wire).
    case bytes = 0
    /// UTF-8 text (1 on the wire), which a broker may check.
    case utf8 = 1

    /// How a scenario names it.
    package var name: String {
        switch self {
        case .bytes: "bytes"
        case .utf8: "utf8"
        }
    }
}
