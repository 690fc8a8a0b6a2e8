import MQTT

package struct Will: Sendable, Equatable {
    package var topic: String
    package var message: String
    package var qos: QoS
    package var retain: Bool

    package init(topic: String, message: String, qos: QoS = .atMostOnce, retain: Bool = false) {
        self.topic = topic
        self.message = message
        self.qos = qos
        self.retain = retain
    }
}
