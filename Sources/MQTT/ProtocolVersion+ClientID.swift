extension ProtocolVersion {
    /// The longest client id a broker of this version must take, in bytes: MQTT 3.1 allows 1 to
    /// 23 characters (aedes refuses more with CONNACK 2); 3.1.1 and 5 oblige a broker to take 23
    /// and let it take more, as mosquitto, aedes and RabbitMQ do, so there devsim's own ids stay whole.
    public var clientIDLimit: Int? { self == .v31 ? 23 : nil }

    /// A client id devsim makes itself (the verifier's, a subscriber group's default, the control
    /// connection's, a shared connection's, `record`'s): `readable` where it is within
    /// `clientIDLimit`; else as much of its head as leaves room for a hash of the whole, so that
    /// ids that differ only past the head still differ (`devsim-verify-4711-2-…` →
    /// `devsim-verify-k3j9x0ab`).
    public func clientID(_ readable: String) -> String {
        guard let limit = clientIDLimit, readable.utf8.count > limit else { return readable }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
        for byte in readable.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        var digits = String(hash % 2_821_109_907_456, radix: 36)  // 36⁸: eight digits
        digits = String(repeating: "0", count: 8 - digits.count) + digits
        var head = ""
        for character in readable {
            guard head.utf8.count + character.utf8.count <= limit - digits.count - 1 else { break }
            head.append(character)
        }
        while head.hasSuffix("-") { head.removeLast() }
        return head.isEmpty ? digits : head + "-" + digits
    }
}
