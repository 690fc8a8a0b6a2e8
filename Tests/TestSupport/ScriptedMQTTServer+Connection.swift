extension ScriptedMQTTServer {
    /// Everything that happened on one accepted TCP connection. Times are monotonic seconds
    /// (``TestClock/now()``).
    public struct Connection: Sendable, Equatable {
        /// Why the server considers the connection over.
        public enum CloseReason: Sendable, Equatable {
            /// The client sent DISCONNECT (and then closed).
            case clientDisconnected
            /// The script sent an MQTT 5 DISCONNECT and closed (`disconnectAfterConnack`).
            case serverDisconnected
            /// The client closed or reset the socket without DISCONNECT.
            case clientClosed
            /// The server sent a refusing CONNACK and closed.
            case refused
            /// The script closed it (`closeOnAccept` or `closeAfterConnack`).
            case scripted
            /// ``ScriptedMQTTServer/dropAllConnections()`` closed it.
            case dropped
            /// ``ScriptedMQTTServer/stop()`` closed it.
            case serverStopped
            /// The client sent something that is not valid MQTT here.
            case protocolError(String)
        }

        /// 1-based number of this connection attempt, in accept order.
        public let attempt: Int
        public let acceptedAt: Double
        /// The CONNECT, once a complete and well-formed one arrived.
        public internal(set) var connect: Connect?
        public internal(set) var connectReceivedAt: Double?
        public internal(set) var connackSentAt: Double?
        public internal(set) var connackCode: UInt8?
        /// When each PINGREQ arrived.
        public internal(set) var pingsReceivedAt: [Double] = []
        /// Topic filters of SUBSCRIBE packets, in the order they came.
        public internal(set) var subscriptions: [String] = []
        /// Each SUBSCRIBE packet: its filters and its size in bytes, fixed header included.
        public internal(set) var subscribePackets: [SubscribePacket] = []
        /// PUBLISH packets answered with a refusing reason code (`Script.publishReasonCode`).
        public internal(set) var refusedPublishes = 0
        public internal(set) var closedAt: Double?
        public internal(set) var closeReason: CloseReason?

        init(attempt: Int, acceptedAt: Double) {
            self.attempt = attempt
            self.acceptedAt = acceptedAt
        }
    }

    /// One SUBSCRIBE as it arrived.
    public struct SubscribePacket: Sendable, Equatable {
        public let filters: [String]
        /// The whole packet, fixed header included: what a Maximum Packet Size limits.
        public let bytes: Int
    }
}
