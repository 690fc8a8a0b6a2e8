import Testing
@testable import Transport

/// The framing the bridge relies on, with frames as a broker sends them (unmasked) and as a
/// client must send them (masked), fed whole, byte by byte and in fragments.
@Suite struct WebSocketFramerTests {
    private func feed(_ framer: WebSocketFramer, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { framer.receive($0) }
    }

    /// A frame from the broker: FIN and `opcode`, then the payload's length (up to 64 KB).
    private func frame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        if payload.count < 126 {
            bytes.append(UInt8(payload.count))
        } else {
            bytes += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        return bytes + payload
    }

    /// The payload of the client frame at the start of `bytes`, unmasked, and the frame's length.
    private func unmask(_ bytes: [UInt8]) -> (opcode: UInt8, payload: [UInt8], length: Int)? {
        guard bytes.count >= 2, bytes[1] & 0x80 != 0 else { return nil }
        var length = Int(bytes[1] & 0x7F)
        var offset = 2
        if length == 126 {
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            offset = 4
        }
        let mask = Array(bytes[offset..<offset + 4])
        offset += 4
        guard bytes.count >= offset + length else { return nil }
        let payload = (0..<length).map { bytes[offset + $0] ^ mask[$0 % 4] }
        return (bytes[0] & 0x0F, payload, offset + length)
    }

    @Test func aBinaryMessageComesOutWholeFedWholeOrByteByByte() {
        let mqtt: [UInt8] = [0x20, 0x02, 0x00, 0x00]  // a CONNACK
        let whole = WebSocketFramer()
        #expect(feed(whole, frame(2, mqtt)))
        #expect(whole.delivered == mqtt)

        let trickled = WebSocketFramer()
        let bytes = frame(2, mqtt) + frame(2, [0xD0, 0x00])
        for byte in bytes { #expect(feed(trickled, [byte])) }
        #expect(trickled.delivered == mqtt + [0xD0, 0x00], "two messages, in order")
    }

    @Test func aFragmentedMessageIsReassembled() {
        let framer = WebSocketFramer()
        let payload = (0..<300).map { UInt8($0 & 0xFF) }
        let parts =
            frame(2, Array(payload[..<100]), fin: false) + frame(0, Array(payload[100..<250]), fin: false)
            + frame(9, [7]) + frame(0, Array(payload[250...]))  // a ping between the fragments
        #expect(feed(framer, Array(parts[..<150])))
        #expect(framer.delivered.isEmpty, "nothing until the last fragment")
        #expect(feed(framer, Array(parts[150...])))
        #expect(framer.delivered == payload)
        framer.produce()
        let pong = unmask(framer.outbound)
        #expect(pong?.opcode == 0xA && pong?.payload == [7], "the ping is answered with its payload")
    }

    @Test func whatIsSentGoesOutMaskedAsBinaryFrames() {
        let framer = WebSocketFramer()
        let connect = Array("\u{10}\u{0C}\u{00}\u{04}MQTT\u{04}\u{02}\u{00}\u{3C}".utf8)
        connect.withUnsafeBytes { framer.send($0) }
        let big = [UInt8](repeating: 0x5A, count: 1000)
        big.withUnsafeBytes { framer.send($0) }
        framer.produce()
        let first = unmask(framer.outbound)
        #expect(first?.opcode == 2 && first?.payload == connect)
        let second = unmask(Array(framer.outbound[(first?.length ?? 0)...]))
        #expect(second?.opcode == 2 && second?.payload == big)
    }

    @Test func outboundStopsAtItsLimitAndGoesOnWhenConsumed() {
        let framer = WebSocketFramer(outboundLimit: 100)
        let message = [UInt8](repeating: 1, count: 80)
        for _ in 0..<5 { message.withUnsafeBytes { framer.send($0) } }
        framer.produce()
        #expect(framer.outbound.count < 300, "held back at the limit: \(framer.outbound.count)")
        #expect(framer.wantsToProduce)
        var total = 0
        while !framer.outbound.isEmpty || framer.wantsToProduce {
            total += framer.outbound.count
            framer.consumeOutbound(framer.outbound.count)
            framer.produce()
        }
        #expect(total == 5 * (80 + 6))
    }

    @Test func aCloseFrameIsReportedAndAnswered() {
        let framer = WebSocketFramer()
        let reason = Array("going away".utf8)
        #expect(feed(framer, frame(8, [0x03, 0xE9] + reason)))
        #expect(framer.closeReceived?.code == 1001 && framer.closeReceived?.reason == "going away")
        framer.produce()
        #expect(unmask(framer.outbound)?.opcode == 8, "the reply")
        #expect(framer.closeSent)
    }

    @Test func aTextFrameIsAFailure() {
        let framer = WebSocketFramer()
        #expect(!feed(framer, frame(1, Array("hi".utf8))))
        #expect(framer.failure == "the broker sent a text frame, where MQTT over WebSockets takes binary frames only")
    }

    @Test func aMaskedFrameFromTheBrokerIsRefused() {
        let framer = WebSocketFramer()
        #expect(!feed(framer, [0x82, 0x81, 1, 2, 3, 4, 5]))
        #expect(framer.failure != nil)
    }
}
