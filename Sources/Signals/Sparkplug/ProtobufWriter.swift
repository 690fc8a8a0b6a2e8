/// Protocol buffers' encoding, as much of it as a Sparkplug payload needs, written straight into
/// a `PayloadBuffer`: keys, varints (Sparkplug's integer fields are `uint32`/`uint64`, so never
/// zig-zag), little-endian fixed32/fixed64, and length-delimited strings and submessages. A
/// submessage is written in place after a one-byte length, moved along only when it outgrows it,
/// so nothing is allocated once the buffer has a payload's size.
package enum ProtobufWriter {
    /// In one `append(length:)`, whose room is checked once: byte by byte, the checks were a
    /// fifth of a DDATA's encoding (callgrind, PayloadBenchmark's ten-field sensor).
    @inline(__always)
    package static func writeVarint(_ value: UInt64, into buffer: inout PayloadBuffer) {
        if value < 0x80 { return buffer.append(UInt8(value)) }
        let size = varintSize(value)
        buffer.append(length: size) { room in
            var rest = value
            for index in 0..<size - 1 {
                room[index] = UInt8(truncatingIfNeeded: rest) | 0x80
                rest >>= 7
            }
            room[size - 1] = UInt8(truncatingIfNeeded: rest)
        }
    }

    /// How many bytes `writeVarint` writes for `value`.
    @inline(__always)
    package static func varintSize(_ value: UInt64) -> Int {
        // 7 bits a byte; 0 still takes one.
        (64 - (value | 1).leadingZeroBitCount + 6) / 7
    }

    @inline(__always)
    package static func writeKey(field: UInt32, _ wireType: ProtobufWireType, into buffer: inout PayloadBuffer) {
        writeVarint(UInt64(field) << 3 | UInt64(wireType.rawValue), into: &buffer)
    }

    @inline(__always)
    package static func writeVarintField(_ field: UInt32, _ value: UInt64, into buffer: inout PayloadBuffer) {
        writeKey(field: field, .varint, into: &buffer)
        writeVarint(value, into: &buffer)
    }

    @inline(__always)
    package static func writeFixed32Field(_ field: UInt32, _ bits: UInt32, into buffer: inout PayloadBuffer) {
        writeKey(field: field, .fixed32, into: &buffer)
        buffer.append(length: 4) { UnsafeMutableRawBufferPointer($0).storeBytes(of: bits.littleEndian, as: UInt32.self) }
    }

    @inline(__always)
    package static func writeFixed64Field(_ field: UInt32, _ bits: UInt64, into buffer: inout PayloadBuffer) {
        writeKey(field: field, .fixed64, into: &buffer)
        buffer.append(length: 8) { UnsafeMutableRawBufferPointer($0).storeBytes(of: bits.littleEndian, as: UInt64.self) }
    }

    package static func writeStringField(_ field: UInt32, _ string: String, into buffer: inout PayloadBuffer) {
        writeKey(field: field, .lengthDelimited, into: &buffer)
        let utf8 = string.utf8
        writeVarint(UInt64(utf8.count), into: &buffer)
        buffer.append(contentsOf: utf8)
    }

    package static func writeBytesField(_ field: UInt32, _ bytes: UnsafeRawBufferPointer, into buffer: inout PayloadBuffer) {
        writeKey(field: field, .lengthDelimited, into: &buffer)
        writeVarint(UInt64(bytes.count), into: &buffer)
        buffer.append(contentsOf: bytes)
    }

    /// Starts submessage `field`: its key and a one-byte placeholder for its length. Returns
    /// where its body starts, for `endMessage`.
    @inline(__always)
    package static func beginMessage(_ field: UInt32, into buffer: inout PayloadBuffer) -> Int {
        writeKey(field: field, .lengthDelimited, into: &buffer)
        buffer.append(0)
        return buffer.count
    }

    /// Ends the submessage whose body started at `start`: sets its length, moving the body along
    /// when the length takes more than one byte (a metric's body is under 128 bytes unless its
    /// name or string is long).
    @inline(__always)
    package static func endMessage(startingAt start: Int, into buffer: inout PayloadBuffer) {
        let length = UInt64(buffer.count - start)
        let size = varintSize(length)
        if size > 1 { buffer.openGap(size - 1, at: start) }
        var value = length
        for offset in 0..<size {
            let more = offset < size - 1
            buffer.setByte(UInt8(truncatingIfNeeded: value & 0x7F) | (more ? 0x80 : 0), at: start - 1 + offset)
            value >>= 7
        }
    }
}
