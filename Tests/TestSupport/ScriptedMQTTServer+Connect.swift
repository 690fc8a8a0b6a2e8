extension ScriptedMQTTServer {
    /// The fields of a CONNECT packet, as the client sent them.
    public struct Connect: Sendable, Equatable {
        /// The message a client asks the server to publish if it vanishes.
        public struct Will: Sendable, Equatable {
            public let topic: String
            public let payload: [UInt8]
            public let qos: UInt8
            public let retain: Bool
        }

        /// "MQTT" for 3.1.1, "MQIsdp" for 3.1.
        public let protocolName: String
        /// 4 for MQTT 3.1.1, 3 for 3.1, 5 for MQTT 5 (whose properties are skipped).
        public let protocolLevel: UInt8
        public let clientID: String
        public let username: String?
        public let password: [UInt8]?
        public let keepAlive: UInt16
        public let cleanSession: Bool
        public let will: Will?
        /// MQTT 5: the CONNECT's properties that devsim may send (none for MQTT 3).
        public let properties: Properties

        /// The CONNECT properties devsim may send (the others are read past); what is not a CONNECT
        /// property makes the packet malformed.
        public struct Properties: Sendable, Equatable {
            public var sessionExpiry: UInt32?
            public var receiveMaximum: UInt16?
            public var maximumPacketSize: UInt32?
            /// Name and value, in the order sent.
            public var userProperties: [[String]] = []

            init() {}

            init(_ reader: inout MQTTWire.Reader) throws(MQTTWire.Malformed) {
                let length = try reader.variableInteger()
                var list = MQTTWire.Reader(ArraySlice(try reader.bytes(length)))
                while !list.isAtEnd {
                    switch try list.byte() {
                    case 0x11: sessionExpiry = try list.uint32()
                    case 0x21: receiveMaximum = try list.uint16()
                    case 0x27: maximumPacketSize = try list.uint32()
                    case 0x26: userProperties.append([try list.string(), try list.string()])
                    // Topic Alias Maximum; Request Response, Problem Information; Authentication.
                    case 0x22: _ = try list.uint16()
                    case 0x19, 0x17: _ = try list.byte()
                    case 0x15, 0x16: _ = try list.binary()
                    case let other: throw MQTTWire.Malformed("not a CONNECT property: \(other)")
                    }
                }
            }
        }

        /// The password as UTF-8 text.
        public var passwordText: String? { password.map { String(decoding: $0, as: UTF8.self) } }

        init(body: ArraySlice<UInt8>) throws(MQTTWire.Malformed) {
            var reader = MQTTWire.Reader(body)
            protocolName = try reader.string()
            protocolLevel = try reader.byte()
            let flags = try reader.byte()
            keepAlive = try reader.uint16()
            cleanSession = flags & 0x02 != 0
            properties = protocolLevel == 5 ? try Properties(&reader) : Properties()
            clientID = try reader.string()
            if flags & 0x04 != 0 {
                if protocolLevel == 5 { try reader.skipProperties() }  // the will's
                let topic = try reader.string()
                let payload = try reader.binary()
                will = Will(topic: topic, payload: payload, qos: (flags >> 3) & 0x03, retain: flags & 0x20 != 0)
            } else {
                will = nil
            }
            username = flags & 0x80 != 0 ? try reader.string() : nil
            password = flags & 0x40 != 0 ? try reader.binary() : nil
        }
    }
}
