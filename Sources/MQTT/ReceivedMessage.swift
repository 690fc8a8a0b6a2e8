/// A message received, as libmosquitto hands it to `on_message`: no copy is made. The topic and
/// payload point into libmosquitto's own buffers and are valid only during the
/// `client(_:didReceive:)` call that receives this value; `topicBytes`/`payload` may be read
/// there without allocating, `topic` makes a `String` (one copy) for those who need one.
package struct ReceivedMessage {
    /// The topic's bytes, without the terminating NUL.
    package let topicBytes: UnsafeRawBufferPointer
    package let payload: UnsafeRawBufferPointer
    package let qos: QoS
    /// Set by the broker for a retained message sent because of a new subscription; clear for a
    /// message forwarded as it is published.
    package let retain: Bool
    /// MQTT 5's request and response: where the sender wants its answer, and what to hand back
    /// with it; `nil` for a message without (and every MQTT 3 message).
    package var responseTopic: String?
    package var correlationData: [UInt8]?

    package init(
        topicBytes: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer, qos: QoS, retain: Bool, responseTopic: String? = nil,
        correlationData: [UInt8]? = nil
    ) {
        self.topicBytes = topicBytes
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.responseTopic = responseTopic
        self.correlationData = correlationData
    }

    /// The topic as a `String` (a copy).
    package var topic: String { String(decoding: topicBytes, as: UTF8.self) }
}
