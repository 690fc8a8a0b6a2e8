/// `broker.onAckTimeout`: what a QoS 1/2 message that waited longer than `ackTimeout` for its
/// acknowledgement does to its connection.
package enum AckTimeoutAction: String, Sendable, CaseIterable {
    /// Counted (`ackTimeouts`) and logged; the connection waits on.
    case count
    /// Counted, and the connection is dropped and made again, so that libmosquitto resends the
    /// message: the only resend MQTT allows within a session.
    case reconnect
}
