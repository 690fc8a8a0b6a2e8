extension ScriptedMQTTServer {
    /// A PUBLISH packet the server received.
    public struct Publish: Sendable, Equatable {
        /// The connection attempt it arrived on (1-based, as in ``Connection/attempt``).
        public let attempt: Int
        /// Monotonic time at which the packet was complete (``TestClock/now()``).
        public let receivedAt: Double
        public let topic: String
        public let payload: [UInt8]
        public let qos: UInt8
        /// Present for QoS 1 and 2.
        public let packetID: UInt16?
        public let retain: Bool
        public let duplicate: Bool

        /// The payload as UTF-8 text.
        public var payloadText: String { String(decoding: payload, as: UTF8.self) }
    }
}
