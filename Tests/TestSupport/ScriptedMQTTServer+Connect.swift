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

        /// The password as UTF-8 text.
        public var passwordText: String? { password.map { String(decoding: $0, as: UTF8.self) } }

        init(body: ArraySlice<UInt8>) throws(MQTTWire.Malformed) {
            var reader = MQTTWire.Reader(body)
            protocolName = try reader.string()
            protocolLevel = try reader.byte()
            let flags = try reader.byte()
            keepAlive = try reader.uint16()
            cleanSession = flags & 0x02 != 0
            if protocolLevel == 5 { try reader.skipProperties() }
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
