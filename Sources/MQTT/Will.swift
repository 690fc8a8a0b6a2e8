/// What the broker publishes for a connection that goes without a DISCONNECT: a scenario's
/// `broker.will` (its topic may hold a device's placeholders, which the fleet's plan fills in
/// per connection), or a device's `availability` offline word.
package struct Will: Sendable, Equatable {
    package var topic: String
    package var payload: [UInt8]
    package var qos: QoS
    package var retain: Bool

    package init(topic: String, payload: [UInt8], qos: QoS = .atMostOnce, retain: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    /// A will whose payload is `message` in UTF-8: the scenario's `message` key.
    package init(topic: String, message: String, qos: QoS = .atMostOnce, retain: Bool = false) {
        self.init(topic: topic, payload: Array(message.utf8), qos: qos, retain: retain)
    }
}
