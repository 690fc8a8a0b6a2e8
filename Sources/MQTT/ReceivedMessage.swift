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

    package init(topicBytes: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer, qos: QoS, retain: Bool) {
        self.topicBytes = topicBytes
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    /// The topic as a `String` (a copy).
    package var topic: String { String(decoding: topicBytes, as: UTF8.self) }
}
