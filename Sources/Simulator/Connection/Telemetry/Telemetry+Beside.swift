import MQTT
import Mosquitto

/// Messages beside the ticks (states, discovery configs, availability, answers, births and
/// deaths): published now, on the same path as the ticks, taking the connection's stamp where
/// they ask for it; not counted as ticks, each refusal said once per reason, and a DISCONNECT
/// waits for their acknowledgements.
extension Telemetry {
    /// `message` with `payload`; whether libmosquitto took it.
    @discardableResult
    func publish(_ message: OutboundMessage, payload: UnsafeRawBufferPointer) -> Bool {
        let (messageID, error) =
            if message.stamped, let stamp {
                stamp.publish(payload, beside: true) {
                    client.publish(topic: message.topic, payload: $0, qos: message.qos, retain: message.retain)
                }
            } else if let correlation = message.correlation {
                client.publish(topic: message.topic, payload: payload, qos: message.qos, correlationData: correlation)
            } else if let properties = message.properties {
                publish(topic: message.topic, payload: payload, retain: message.retain, properties: properties)
            } else {
                client.publish(topic: message.topic, payload: payload, qos: message.qos, retain: message.retain)
            }
        if let error {
            warnOnce(
                "\(message.what): cannot publish to '\(message.topic)': \(publishFailure(error, payload: payload.count))",
                key: "\(message.what): \(error)")
            return false
        }
        if message.qos.isAcknowledged { besideAwaitingAcknowledgement[messageID] = (message.topic.name, message.what) }
        return true
    }

    /// A device's state on its topic of slot `slot` (`Device.topic(slot:)`), as its ticks go
    /// there: their QoS, retain flag and properties.
    func publish(state payload: UnsafeRawBufferPointer, of device: Device, slot: Int, what: String) -> Bool {
        let message = OutboundMessage(
            topic: device.topic(slot: slot), qos: qos, retain: device.retains(slot: slot), what: what, properties: device.properties)
        return publish(message, payload: payload)
    }
}
