/// Byte-level MQTT framing for the scripted server: just enough to split a byte stream into
/// packets, read the fields the server records, and write MQTT 5's properties.
enum MQTTWire {
    /// One control packet: the first header byte and the bytes after the remaining length.
    struct Packet {
        let header: UInt8
        let body: ArraySlice<UInt8>
        var type: UInt8 { header >> 4 }
        var flags: UInt8 { header & 0x0f }
        /// The whole packet's size in bytes, fixed header included.
        var size: Int { 1 + MQTTWire.variableInteger(body.count).count + body.count }
    }

    /// Bytes that cannot be an MQTT packet; the connection is closed when this is thrown.
    struct Malformed: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// Packets larger than this are refused: the server only ever sees small test traffic, and
    /// a garbage length must not make it buffer hundreds of megabytes.
    static let maximumPacketSize = 1 << 20

    /// Removes and returns the first complete packet in `buffer`, or `nil` if more bytes are
    /// needed.
    static func nextPacket(from buffer: inout [UInt8]) throws(Malformed) -> Packet? {
        guard buffer.count >= 2 else { return nil }
        var length = 0
        var multiplier = 1
        var index = 1
        while true {
            guard index < buffer.count else { return nil }
            guard index <= 4 else { throw Malformed("remaining length longer than 4 bytes") }
            let byte = buffer[index]
            length += Int(byte & 0x7f) * multiplier
            multiplier *= 128
            index += 1
            if byte & 0x80 == 0 { break }
        }
        guard length <= maximumPacketSize else { throw Malformed("packet of \(length) bytes is too large") }
        guard buffer.count >= index + length else { return nil }
        let packet = Packet(header: buffer[0], body: ArraySlice(buffer[index..<(index + length)]))
        buffer.removeFirst(index + length)
        return packet
    }

    /// Encodes a packet with its remaining length.
    static func encode(header: UInt8, body: [UInt8] = []) -> [UInt8] {
        [header] + variableInteger(body.count) + body
    }

    /// MQTT's Variable Byte Integer: seven bits a byte, the high bit saying more follow.
    static func variableInteger(_ value: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = value
        repeat {
            var byte = UInt8(rest % 128)
            rest /= 128
            if rest > 0 { byte |= 0x80 }
            bytes.append(byte)
        } while rest > 0
        return bytes
    }

    /// An MQTT 5 property list as a packet carries it: its length, then each property.
    static func properties(_ properties: [(identifier: UInt8, value: [UInt8])]) -> [UInt8] {
        let bytes = properties.flatMap { [$0.identifier] + $0.value }
        return variableInteger(bytes.count) + bytes
    }

    static func uint16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xff)] }
    static func uint32(_ value: UInt32) -> [UInt8] { uint16(UInt16(value >> 16)) + uint16(UInt16(value & 0xffff)) }
    static func string(_ value: String) -> [UInt8] { uint16(UInt16(value.utf8.count)) + Array(value.utf8) }

    /// Reads big-endian integers and length-prefixed fields from a packet body.
    struct Reader {
        private var bytes: ArraySlice<UInt8>

        init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

        var isAtEnd: Bool { bytes.isEmpty }
        /// Whatever is left (a PUBLISH payload).
        var rest: [UInt8] { Array(bytes) }

        mutating func byte() throws(Malformed) -> UInt8 {
            guard let first = bytes.first else { throw Malformed("packet ends early") }
            bytes = bytes.dropFirst()
            return first
        }

        mutating func uint16() throws(Malformed) -> UInt16 {
            let high = try byte()
            return UInt16(high) << 8 | UInt16(try byte())
        }

        mutating func uint32() throws(Malformed) -> UInt32 {
            let high = try uint16()
            return UInt32(high) << 16 | UInt32(try uint16())
        }

        /// The next `count` bytes.
        mutating func bytes(_ count: Int) throws(Malformed) -> [UInt8] {
            guard bytes.count >= count else { throw Malformed("field longer than the packet") }
            defer { bytes = bytes.dropFirst(count) }
            return Array(bytes.prefix(count))
        }

        mutating func binary() throws(Malformed) -> [UInt8] {
            let length = Int(try uint16())
            guard bytes.count >= length else { throw Malformed("field longer than the packet") }
            defer { bytes = bytes.dropFirst(length) }
            return Array(bytes.prefix(length))
        }

        mutating func string() throws(Malformed) -> String {
            String(decoding: try binary(), as: UTF8.self)
        }

        mutating func variableInteger() throws(Malformed) -> Int {
            var value = 0
            for shift in stride(from: 0, to: 28, by: 7) {
                let byte = try byte()
                value |= Int(byte & 0x7f) << shift
                if byte & 0x80 == 0 { return value }
            }
            throw Malformed("variable byte integer longer than 4 bytes")
        }

        /// Skips an MQTT 5 property list (its length, then that many bytes).
        mutating func skipProperties() throws(Malformed) {
            let length = try variableInteger()
            guard bytes.count >= length else { throw Malformed("properties longer than the packet") }
            bytes = bytes.dropFirst(length)
        }
    }
}
