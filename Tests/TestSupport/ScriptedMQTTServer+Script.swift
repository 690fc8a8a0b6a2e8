extension ScriptedMQTTServer {
    /// How the server behaves on one connection attempt. Times are in seconds.
    ///
    /// ```swift
    /// Script()                                   // accept, ack everything, answer pings
    /// Script(connackCode: 5)                     // refuse: not authorized
    /// Script(connackCode: 0x87)                  // the same to an MQTT 5 client
    /// Script(connackDelay: 1.5)                  // hold the CONNACK back
    /// Script(closeAfterConnack: 0.5)             // accept, then drop the connection
    /// Script(ackPublishes: false, answerPings: false)  // a broker gone silent
    /// Script(acksQoS2WithPuback: true)           // RabbitMQ 3.10's answer to QoS 2
    /// Script(refusesMQTT5: true)                 // a broker of MQTT 3 only
    /// Script(ackDelay: { $0 < 1000 ? 0 : 0.1 })  // a broker that slows past 1,000 msg/s
    /// ```
    public struct Script: Sendable {
        /// Close the socket as soon as it is accepted, before reading anything.
        public var closeOnAccept: Bool
        /// Whether to answer CONNECT at all (`false`: the client waits forever for its CONNACK).
        public var sendConnack: Bool
        /// How long to hold the CONNACK back after the CONNECT arrived.
        public var connackDelay: Double
        /// CONNACK return code: 0 accepted, 1 bad protocol version, 2 identifier rejected,
        /// 3 server unavailable, 4 bad username or password, 5 not authorized. A non-zero code
        /// is followed by closing the connection, as the protocol requires.
        public var connackCode: UInt8
        /// The CONNACK's session-present flag.
        public var sessionPresent: Bool
        /// Close the connection this long after the CONNACK was sent.
        public var closeAfterConnack: Double?
        /// PUBACK QoS 1 publishes; PUBREC QoS 2 publishes and PUBCOMP their PUBREL.
        public var ackPublishes: Bool
        /// Answer PINGREQ with PINGRESP.
        public var answerPings: Bool
        /// Answer a QoS 2 PUBLISH with PUBACK, as if it were QoS 1, which breaks the protocol.
        public var acksQoS2WithPuback: Bool
        /// Refuse an MQTT 5 CONNECT with reason 0x84, unsupported protocol version.
        public var refusesMQTT5: Bool
        /// How long to hold each PUBACK back, given the PUBLISH packets the whole server
        /// received a second over the last `ScriptedMQTTServer.rateWindow`: a broker whose
        /// acknowledgements slow down as its load grows. `nil`: at once.
        public var ackDelay: (@Sendable (_ receivedPerSecond: Double) -> Double)?

        public init(
            closeOnAccept: Bool = false,
            sendConnack: Bool = true,
            connackDelay: Double = 0,
            connackCode: UInt8 = 0,
            sessionPresent: Bool = false,
            closeAfterConnack: Double? = nil,
            ackPublishes: Bool = true,
            answerPings: Bool = true,
            acksQoS2WithPuback: Bool = false,
            refusesMQTT5: Bool = false,
            ackDelay: (@Sendable (_ receivedPerSecond: Double) -> Double)? = nil
        ) {
            self.closeOnAccept = closeOnAccept
            self.sendConnack = sendConnack
            self.connackDelay = connackDelay
            self.connackCode = connackCode
            self.sessionPresent = sessionPresent
            self.closeAfterConnack = closeAfterConnack
            self.ackPublishes = ackPublishes
            self.answerPings = answerPings
            self.acksQoS2WithPuback = acksQoS2WithPuback
            self.refusesMQTT5 = refusesMQTT5
            self.ackDelay = ackDelay
        }
    }
}
