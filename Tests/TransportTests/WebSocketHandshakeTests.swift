import Testing
@testable import Transport

@Suite struct WebSocketHandshakeTests {
    /// RFC 6455, section 1.3: the key "dGhlIHNhbXBsZSBub25jZQ==" is answered with this.
    @Test func theAcceptKeyIsTheRFCs() {
        #expect(WebSocketHandshake.accept(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func keysAreSixteenRandomBytes() {
        let key = WebSocketHandshake.randomKey()
        #expect(key.count == 24 && key.hasSuffix("=="))
        #expect(key != WebSocketHandshake.randomKey())
    }

    private let handshake = WebSocketHandshake(host: "broker.example", port: 8080, path: "/mqtt", key: "dGhlIHNhbXBsZSBub25jZQ==")

    private func answer(_ lines: [String]) -> [UInt8] {
        Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    private var accepting: [String] {
        [
            "HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade",
            "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", "Sec-WebSocket-Protocol: mqtt",
        ]
    }

    @Test func theRequestAsksForMQTT() {
        let text = String(decoding: handshake.request(defaultPort: 80), as: UTF8.self)
        #expect(text.hasPrefix("GET /mqtt HTTP/1.1\r\nHost: broker.example:8080\r\n"))
        #expect(text.contains("\r\nSec-WebSocket-Protocol: mqtt\r\n") && text.contains("\r\nSec-WebSocket-Version: 13\r\n"))
        #expect(text.contains("\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n") && text.hasSuffix("\r\n\r\n"))
        let standard = WebSocketHandshake(host: "::1", port: 443, path: "/", key: "k")
        #expect(String(decoding: standard.request(defaultPort: 443), as: UTF8.self).contains("\r\nHost: [::1]\r\n"))
    }

    @Test func anAcceptingAnswerGivesWhereTheFramesBegin() {
        var bytes = answer(accepting)
        let headerLength = bytes.count
        bytes += [0x82, 0x00]
        #expect(handshake.verdict(on: bytes) == .accepted(consumed: headerLength))
    }

    @Test func aPartialAnswerWaitsForMore() {
        let bytes = answer(accepting)
        for cut in [0, 1, 20, bytes.count - 1] {
            #expect(handshake.verdict(on: bytes[..<cut]) == .incomplete, "\(cut)")
        }
        #expect(
            handshake.verdict(on: [UInt8](repeating: 65, count: WebSocketHandshake.maximumHeaderBytes + 1))
                == .refused("the broker's answer to the WebSocket upgrade has no end of header in 16384 bytes"))
    }

    @Test func eachRefusalSaysWhy() {
        #expect(
            handshake.verdict(on: answer(["HTTP/1.1 403 Forbidden", "Content-Length: 0"]))
                == .refused("the broker refused the WebSocket upgrade: 403 Forbidden"))
        #expect(
            handshake.verdict(on: answer(accepting.filter { !$0.hasPrefix("Sec-WebSocket-Protocol") }))
                == .refused(
                    "the broker accepted the WebSocket without the 'mqtt' subprotocol (Sec-WebSocket-Protocol: missing): check the path"))
        let wrongKey = accepting.map { $0.hasPrefix("Sec-WebSocket-Accept") ? "Sec-WebSocket-Accept: AAAA" : $0 }
        #expect(
            handshake.verdict(on: answer(wrongKey))
                == .refused("the broker's Sec-WebSocket-Accept is wrong: not a WebSocket server, or a proxy in the way"))
        #expect(
            handshake.verdict(on: answer(["SSH-2.0-OpenSSH_9.2"]))
                == .refused("the broker did not answer the WebSocket upgrade in HTTP: 'SSH-2.0-OpenSSH_9.2'"))
    }

    @Test func headerNamesAreCaseInsensitive() {
        let shouting = accepting.map { line -> String in
            guard let colon = line.firstIndex(of: ":") else { return line }
            return line[..<colon].uppercased() + line[colon...]
        }
        #expect(handshake.verdict(on: answer(shouting)) == .accepted(consumed: answer(shouting).count))
    }
}
