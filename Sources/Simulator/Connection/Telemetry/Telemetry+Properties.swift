import MQTT
import Mosquitto

extension Telemetry {
    /// A tick of a device with MQTT 5 properties (`properties:`): the client's publish with its
    /// list, and the bytes its Topic Alias saved counted. A broker that takes no alias gets the
    /// topics in full, as said once for the run.
    func publish(topic: Topic, payload: UnsafeRawBufferPointer, retain: Bool, properties: PropertyList) -> (
        messageID: Int32, error: MosquittoError?
    ) {
        let sent = client.publish(topic: topic, payload: payload, qos: qos, retain: retain, properties: properties)
        if sent.aliasSaving != 0 {
            counters.add(.aliasBytesSaved, sent.aliasSaving)
        } else if properties.properties.topicAlias, !qos.isAcknowledged, sent.error == nil, client.refusesTopicAliases {
            warnOnce(
                "the broker takes no topic aliases (Topic Alias Maximum 0 or none in its CONNACK): topics go in full",
                key: "topic aliases refused")
        }
        return (sent.messageID, sent.error)
    }
}
