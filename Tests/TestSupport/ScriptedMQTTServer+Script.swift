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
    /// Script(closesMQTT5Connect: true)           // RabbitMQ 3.10's answer to an MQTT 5 CONNECT
    /// Script(connackProperties: .init(maximumPacketSize: 256))    // the Paho test broker's limit
    /// Script(publishReasonCode: { $0.hasPrefix("denied/") ? 0x87 : 0 })  // an ACL, to MQTT 5
    /// Script(subscribeReasonCode: { _ in 0x87 })  // every subscription refused
    /// Script(disconnectAfterConnack: (after: 0.5, reason: 0x8B))  // "server shutting down"
    /// Script(relay: .init())                     // a broker: each PUBLISH to its subscribers
    /// Script(relay: .init(topic: { $0.replacingOccurrences(of: ".", with: "/") }))  // RabbitMQ 3.10's
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
        /// Close an MQTT 5 CONNECT's connection at once, without a CONNACK, as a broker of MQTT 3
        /// only may (RabbitMQ 3.10).
        public var closesMQTT5Connect: Bool
        /// The properties of the CONNACK to an MQTT 5 client: the limits it must keep.
        public var connackProperties: ConnackProperties
        /// The reason code of the PUBACK (QoS 1) or PUBREC (QoS 2) to an MQTT 5 PUBLISH on a topic;
        /// `nil`: 0, success. A code of 0x80 or more refuses the message (no PUBREL follows).
        public var publishReasonCode: (@Sendable (_ topic: String) -> UInt8)?
        /// What the SUBACK says of each filter: its granted QoS, or a refusal (0x80 to an MQTT 3
        /// client, an MQTT 5 reason code such as 0x87 to an MQTT 5 one); `nil`: the QoS asked for.
        public var subscribeReasonCode: (@Sendable (_ filter: String) -> UInt8)?
        /// To an MQTT 5 client, this long after the CONNACK: a DISCONNECT with this reason code,
        /// then the close.
        public var disconnectAfterConnack: (after: Double, reason: UInt8)?
        /// After the SUBACK of a SUBSCRIBE to `filter`: these messages to the client, at QoS 0,
        /// as a cloud sends a device its requests (Azure IoT Hub's direct methods).
        public var publishAfterSubscribe: (@Sendable (_ filter: String) -> [(topic: String, payload: [UInt8])])?
        /// Each PUBLISH on this connection delivered, as a broker does, to the connections whose
        /// SUBSCRIBEs match its topic; `nil`: to none.
        public var relay: Relay?

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
            ackDelay: (@Sendable (_ receivedPerSecond: Double) -> Double)? = nil,
            closesMQTT5Connect: Bool = false,
            connackProperties: ConnackProperties = ConnackProperties(),
            publishReasonCode: (@Sendable (_ topic: String) -> UInt8)? = nil,
            subscribeReasonCode: (@Sendable (_ filter: String) -> UInt8)? = nil,
            disconnectAfterConnack: (after: Double, reason: UInt8)? = nil,
            publishAfterSubscribe: (@Sendable (_ filter: String) -> [(topic: String, payload: [UInt8])])? = nil,
            relay: Relay? = nil
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
            self.closesMQTT5Connect = closesMQTT5Connect
            self.connackProperties = connackProperties
            self.publishReasonCode = publishReasonCode
            self.subscribeReasonCode = subscribeReasonCode
            self.disconnectAfterConnack = disconnectAfterConnack
            self.publishAfterSubscribe = publishAfterSubscribe
            self.relay = relay
        }
    }

    /// How the server delivers a PUBLISH to its subscribers: at QoS 0, the seconds `delay` says
    /// (asked once a message, in order) after it came, whatever `Script.ackDelay` holds its
    /// acknowledgement back (a slow broker that delivers what it has not acknowledged, as the
    /// Paho test broker does); matched by its topic, and delivered on the one `topic` makes of it
    /// (RabbitMQ 3.10 delivers `spBv1.0/…` as `spBv1/0/…`, against [MQTT-3.3.2-3]). What is still
    /// held when the publisher's connection ends is never delivered.
    public struct Relay: Sendable {
        public var delay: @Sendable () -> Double
        public var topic: @Sendable (_ published: String) -> String

        public init(
            delay: @escaping @Sendable () -> Double = { 0 }, topic: @escaping @Sendable (_ published: String) -> String = { $0 }
        ) {
            self.delay = delay
            self.topic = topic
        }
    }

    /// What an MQTT 5 CONNACK tells the client of the server; `nil` leaves a property out.
    public struct ConnackProperties: Sendable {
        public var maximumPacketSize: UInt32?
        public var receiveMaximum: UInt16?
        public var topicAliasMaximum: UInt16?
        public var serverKeepAlive: UInt16?
        /// Given, when set, to a client that sent an empty client id.
        public var assignedClientIdentifier: String?
        public var maximumQoS: UInt8?
        public var retainAvailable: Bool?

        public init(
            maximumPacketSize: UInt32? = nil, receiveMaximum: UInt16? = nil, topicAliasMaximum: UInt16? = nil,
            serverKeepAlive: UInt16? = nil, assignedClientIdentifier: String? = nil, maximumQoS: UInt8? = nil,
            retainAvailable: Bool? = nil
        ) {
            self.maximumPacketSize = maximumPacketSize
            self.receiveMaximum = receiveMaximum
            self.topicAliasMaximum = topicAliasMaximum
            self.serverKeepAlive = serverKeepAlive
            self.assignedClientIdentifier = assignedClientIdentifier
            self.maximumQoS = maximumQoS
            self.retainAvailable = retainAvailable
        }

        /// The property list, by MQTT 5's identifiers.
        func encoded(clientIDWasEmpty: Bool) -> [UInt8] {
            var list: [(identifier: UInt8, value: [UInt8])] = []
            if let receiveMaximum { list.append((0x21, MQTTWire.uint16(receiveMaximum))) }
            if let maximumQoS { list.append((0x24, [maximumQoS])) }
            if let retainAvailable { list.append((0x25, [retainAvailable ? 1 : 0])) }
            if let maximumPacketSize { list.append((0x27, MQTTWire.uint32(maximumPacketSize))) }
            if clientIDWasEmpty, let assignedClientIdentifier { list.append((0x12, MQTTWire.string(assignedClientIdentifier))) }
            if let topicAliasMaximum { list.append((0x22, MQTTWire.uint16(topicAliasMaximum))) }
            if let serverKeepAlive { list.append((0x13, MQTTWire.uint16(serverKeepAlive))) }
            return MQTTWire.properties(list)
        }
    }
}
