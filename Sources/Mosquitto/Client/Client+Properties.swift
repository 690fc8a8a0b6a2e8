import CMosquitto
import Glibc
import MQTT

extension Client {
    /// What a PUBLISH with properties did: its message id, its error, and the bytes its Topic
    /// Alias saved over sending the topic in full (negative for the first, which carries both).
    package struct PropertiesPublish {
        package var messageID: Int32
        package var error: MosquittoError?
        package var aliasSaving = 0
    }

    /// Hands a message with MQTT 5 properties to libmosquitto: `mosquitto_publish_v5` with the
    /// device's list, made once (`PropertyList`). With `topicAlias`, a QoS 0 message on a topic
    /// this connection has aliased goes with the alias alone and an empty topic, which
    /// libmosquitto 2.0.11 takes where the list has a Topic Alias (`actions.c`). QoS 1/2
    /// messages never carry an alias: libmosquitto keeps them to resend after a reconnect, where
    /// an alias of the old connection would be a protocol error (the loader refuses the pair).
    @inline(__always)
    package func publish(topic: Topic, payload: UnsafeRawBufferPointer, qos: QoS, retain: Bool, properties: PropertyList)
        -> PropertiesPublish
    {
        var use = TopicAliases.Use.topic
        if properties.properties.topicAlias, !qos.isAcknowledged { use = topicAliases.use(for: topic.name) }
        let inFull = PacketSize.publish(
            topic: topic.cString.count - 1, payload: payload.count, qos: qos, version: .v5, properties: properties.encodedLength)
        var list = properties.plain
        var size = inFull
        switch use {
        case .topic: break
        case .topicAndAlias(let alias), .alias(let alias):
            do { list = try properties.list(alias: alias, connection: topicAliases.connection) } catch {
                topicAliases.withdraw(use, for: topic.name)
                return PropertiesPublish(messageID: 0, error: error)
            }
            size = PacketSize.publish(
                topic: use == .alias(alias) ? 0 : topic.cString.count - 1, payload: payload.count, qos: qos, version: .v5,
                properties: properties.encodedLength + PublishProperties.topicAliasLength)
            // The first PUBLISH on a topic is 3 bytes over the same one in full, which may still
            // fit the broker's Maximum Packet Size: it goes in full, and gives no alias.
            if case .topicAndAlias = use, !brokerLimits.admits(packetOf: size) {
                topicAliases.withdraw(use, for: topic.name)
                (use, list, size) = (.topic, properties.plain, inFull)
            }
        }
        guard brokerLimits.admits(packetOf: size) else { return PropertiesPublish(messageID: 0, error: .oversizePacket) }
        var messageID: Int32 = 0
        let rc: Int32
        if case .alias = use {
            rc = mosquitto_publish_v5(handle, &messageID, "", Int32(payload.count), payload.baseAddress, qos.rawValue, retain, list)
        } else {
            rc = topic.cString.withUnsafeBufferPointer { name in
                mosquitto_publish_v5(
                    handle, &messageID, name.baseAddress, Int32(payload.count), payload.baseAddress, qos.rawValue, retain, list)
            }
        }
        if mosquitto_want_write(handle) { registrationMayChange() }
        var result = PropertiesPublish(messageID: messageID, error: rc == 0 ? nil : MosquittoError(rawValue: rc, systemErrno: errno))
        if rc != 0 {
            // A PUBLISH the broker will not see gives it no alias.
            topicAliases.withdraw(use, for: topic.name)
        } else if use != TopicAliases.Use.topic {
            result.aliasSaving = inFull - size
        }
        return result
    }

    /// Whether the broker's CONNACK let this connection use no Topic Alias at all (a Topic
    /// Alias Maximum of 0, or none given).
    package var refusesTopicAliases: Bool { brokerLimits.topicAliasMaximum == 0 }
}
