import CMosquitto
import Glibc
import MQTT
import Transport

// libmosquitto calls back through C function pointers; the way back to the Swift object is the
// user-data pointer set in `Client.init`. These closures capture nothing, so they convert to
// `@convention(c)`, and they live in non-isolated library code, so calling them from an event-loop
// thread is sound.
extension Client {
    /// Without `reportsPublishes`, there is no `on_publish`: for QoS 0 it reports only that a
    /// message was written, which costs a call into Swift per message for nothing.
    static func installCallbacks(_ handle: OpaquePointer, reportsPublishes: Bool) {
        // The v5 callbacks, called for every protocol: an MQTT 3 CONNACK has no properties, an
        // MQTT 3 acknowledgement no reason code.
        mosquitto_connect_v5_callback_set(handle) { _, userData, rc, _, properties in
            guard let client = Client.from(userData) else { return }
            client.connackArrived(limits: properties.map { Client.limits($0, over: client.brokerLimits) } ?? client.brokerLimits)
            client.delegate?.client(client, didReceiveConnack: ConnackCode(rawValue: rc))
        }
        mosquitto_disconnect_callback_set(handle) { _, userData, rc in
            guard let client = Client.from(userData) else { return }
            client.socketClosed()
            client.disconnectsReported += 1
            // Within a handshake step (`handshakeStep`): what it met is the close's reason.
            if client.awaitsConnack, let tls = client.options.libraryTLS,
                let refusal = CertificateVerification.metSoFar(certificate: tls.certificate)
            {
                client.certificateRefusal = refusal
            }
            let error = client.abandonedBecause ?? client.disconnectError(rc)
            client.abandonedBecause = nil
            client.delegate?.client(client, didDisconnect: error)
        }
        if reportsPublishes {
            // The v5 callback alone hears of a PUBREC that refuses a QoS 2 message.
            mosquitto_publish_v5_callback_set(handle) { _, userData, messageID, reasonCode, _ in
                guard let userData else { return }
                // Unretained for the call: the client outlives its handle's callbacks.
                Unmanaged<Client>.fromOpaque(userData)._withUnsafeGuaranteedRef { client in
                    client.delegate?.client(
                        client, didPublish: messageID, reasonCode: ReasonCode(rawValue: UInt8(truncatingIfNeeded: reasonCode)))
                }
            }
        }
        // The v5 callback, called for every protocol: an MQTT 3 message has no properties.
        mosquitto_message_v5_callback_set(handle) { _, userData, message, properties in
            guard let client = Client.from(userData), let message = message?.pointee else { return }
            let topicLength = message.topic.map { strlen($0) } ?? 0
            var received = ReceivedMessage(
                topicBytes: UnsafeRawBufferPointer(start: message.topic, count: topicLength),
                payload: UnsafeRawBufferPointer(start: message.payload, count: Int(max(0, message.payloadlen))),
                qos: QoS(rawValue: message.qos) ?? .atMostOnce, retain: message.retain)
            if let properties { Client.readRequest(properties, into: &received) }
            client.delegate?.client(client, didReceive: received)
        }
        mosquitto_subscribe_callback_set(handle) { _, userData, messageID, count, granted in
            guard let client = Client.from(userData) else { return }
            let levels = granted.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(0, count)))) } ?? []
            client.delegate?.client(client, didSubscribe: messageID, grantedQoS: levels)
        }
    }

    /// What a CONNACK's properties say the client must keep to, over `limits`: each property
    /// read (`mosquitto_property_read_int32`, `…_int16`, `…_byte`, `…_string`) replaces what was
    /// known, and one absent leaves it, as libmosquitto's `handle__connack` does.
    private static func limits(_ properties: OpaquePointer, over limits: BrokerLimits) -> BrokerLimits {
        var limits = limits
        var packetSize: UInt32 = 0
        if mosquitto_property_read_int32(properties, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue), &packetSize, false) != nil {
            // 0 is no limit to libmosquitto (`packet__check_oversize`), though MQTT 5 forbids it.
            limits.maximumPacketSize = packetSize == 0 ? nil : Int(packetSize)
        }
        var value: UInt16 = 0
        if mosquitto_property_read_int16(properties, Int32(MQTT_PROP_RECEIVE_MAXIMUM.rawValue), &value, false) != nil {
            limits.receiveMaximum = Int(value)
        }
        if mosquitto_property_read_int16(properties, Int32(MQTT_PROP_TOPIC_ALIAS_MAXIMUM.rawValue), &value, false) != nil {
            limits.topicAliasMaximum = Int(value)
        }
        if mosquitto_property_read_int16(properties, Int32(MQTT_PROP_SERVER_KEEP_ALIVE.rawValue), &value, false) != nil {
            limits.serverKeepAlive = .seconds(Int(value))
        }
        var byte: UInt8 = 0
        if mosquitto_property_read_byte(properties, Int32(MQTT_PROP_MAXIMUM_QOS.rawValue), &byte, false) != nil {
            limits.maximumQoS = QoS(rawValue: Int32(byte)) ?? .exactlyOnce
        }
        if mosquitto_property_read_byte(properties, Int32(MQTT_PROP_RETAIN_AVAILABLE.rawValue), &byte, false) != nil {
            limits.retainAvailable = byte != 0
        }
        var identifier: UnsafeMutablePointer<CChar>?
        if mosquitto_property_read_string(properties, Int32(MQTT_PROP_ASSIGNED_CLIENT_IDENTIFIER.rawValue), &identifier, false) != nil,
            let identifier
        {
            limits.assignedClientIdentifier = String(cString: identifier)
            free(identifier)
        }
        return limits
    }

    /// A request's response topic and correlation data: `mosquitto_property_read_string`,
    /// `mosquitto_property_read_binary`. Each value the library hands out is ours to free.
    private static func readRequest(_ properties: OpaquePointer, into message: inout ReceivedMessage) {
        var topic: UnsafeMutablePointer<CChar>?
        if mosquitto_property_read_string(properties, Int32(MQTT_PROP_RESPONSE_TOPIC.rawValue), &topic, false) != nil, let topic {
            message.responseTopic = String(cString: topic)
            free(topic)
        }
        var data: UnsafeMutableRawPointer?
        var length: UInt16 = 0
        if mosquitto_property_read_binary(properties, Int32(MQTT_PROP_CORRELATION_DATA.rawValue), &data, &length, false) != nil, let data {
            message.correlationData = Array(UnsafeRawBufferPointer(start: data, count: Int(length)))
            free(data)
        }
    }

    static func from(_ userData: UnsafeMutableRawPointer?) -> Client? {
        guard let userData else { return nil }
        return Unmanaged<Client>.fromOpaque(userData).takeUnretainedValue()
    }
}
