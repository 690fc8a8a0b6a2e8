import MQTT

/// A device group's `properties:`: the MQTT 5 properties of its devices' messages, their texts
/// templates filled per device as `topic` is.
package struct MessageProperties: Sendable, Equatable {
    /// User Property pairs: each name as written, each value a template.
    package var userProperties: [(name: String, value: Template)] = []
    /// Message Expiry Interval, whole seconds.
    package var messageExpiry: UInt32?
    package var contentType: Template?
    package var payloadFormat: PayloadFormat?
    /// A topic to publish to, no wildcards.
    package var responseTopic: Template?
    /// Sent as the UTF-8 bytes of the filled text.
    package var correlationData: Template?
    /// `topicAlias: auto`.
    package var topicAlias = false
    /// Where `properties` is written: MQTT 3.1.1 is refused there (`FleetPlan`).
    package var location: SourceLocation?

    package init() {}

    /// The properties of device `index`, `id` of group `name`.
    package func render(name: String, index: Int, id: String) -> PublishProperties {
        var properties = PublishProperties()
        let fill = { (template: Template) in template.render(name: name, index: index, id: id) }
        properties.userProperties = userProperties.map { UserProperty(name: $0.name, value: fill($0.value)) }
        properties.messageExpiry = messageExpiry
        properties.contentType = contentType.map(fill)
        properties.payloadFormat = payloadFormat
        properties.responseTopic = responseTopic.map(fill)
        properties.correlationData = correlationData.map { Array(fill($0).utf8) }
        properties.topicAlias = topicAlias
        return properties
    }

    package static func == (lhs: MessageProperties, rhs: MessageProperties) -> Bool {
        lhs.userProperties.elementsEqual(rhs.userProperties) { $0.name == $1.name && $0.value == $1.value }
            && lhs.messageExpiry == rhs.messageExpiry && lhs.contentType == rhs.contentType
            && lhs.payloadFormat == rhs.payloadFormat && lhs.responseTopic == rhs.responseTopic
            && lhs.correlationData == rhs.correlationData && lhs.topicAlias == rhs.topicAlias && lhs.location == rhs.location
    }
}
