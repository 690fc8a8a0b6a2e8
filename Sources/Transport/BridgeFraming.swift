/// How a `BrokerBridge` wraps MQTT's bytes toward the broker and unwraps them back: WebSocket
/// frames (`WebSocketFramer`) or nothing at all (`PassThroughFraming`).
package protocol BridgeFraming: AnyObject {
    /// MQTT bytes from the broker, for libmosquitto.
    var delivered: [UInt8] { get set }
    /// Bytes made for the broker's socket.
    var outbound: [UInt8] { get }
    /// The broker's close message (WebSocket's close frame), once one came.
    var closeReceived: (code: UInt16, reason: String)? { get }
    /// Why the stream cannot go on, once it cannot.
    var failure: String? { get }
    /// Bytes queued and not yet made into `outbound`.
    var queuedBytes: Int { get }
    /// Whether bytes wait to be made into `outbound`.
    var wantsToProduce: Bool { get }
    /// Whether the closing message is made (or none is needed).
    var closeSent: Bool { get }
    /// Takes bytes from the broker; false once the stream cannot go on.
    @discardableResult func receive(_ bytes: UnsafeRawBufferPointer) -> Bool
    /// Queues MQTT bytes from libmosquitto.
    func send(_ bytes: UnsafeRawBufferPointer)
    /// Queues the closing message, where the framing has one.
    func close(code: UInt16)
    /// Makes what is queued into `outbound`.
    func produce()
    /// Takes the first `count` bytes of `outbound`, written to the broker.
    func consumeOutbound(_ count: Int)
}

extension WebSocketFramer: BridgeFraming {}
