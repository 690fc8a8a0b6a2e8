import COpenSSL

/// The opening handshake of a WebSocket (RFC 6455, section 4) as a client makes it for MQTT: the
/// HTTP/1.1 upgrade request with `Sec-WebSocket-Protocol: mqtt`, and the judgement of the answer.
/// Pure: bytes in, bytes or a verdict out; the bridge does the I/O.
package struct WebSocketHandshake: Sendable {
    package let host: String
    package let port: Int32
    package let path: String
    /// The request's `Sec-WebSocket-Key`: 16 random bytes, in base64.
    package let key: String

    /// What the broker's answer says, once it is whole.
    package enum Verdict: Equatable, Sendable {
        /// The header is not complete yet: read more.
        case incomplete
        /// `101 Switching Protocols`, accepted for MQTT; the frames begin `consumed` bytes in.
        case accepted(consumed: Int)
        /// Anything else, in words for a person: "the broker refused the WebSocket upgrade: 403 Forbidden".
        case refused(String)
    }

    /// The most an answer's header may take before it counts as no answer at all.
    package static let maximumHeaderBytes = 16 * 1024

    package init(host: String, port: Int32, path: String, key: String = WebSocketHandshake.randomKey()) {
        self.host = host
        self.port = port
        self.path = path
        self.key = key
    }

    /// The upgrade request. The port is in `Host` unless it is the scheme's default, which the
    /// caller says with `defaultPort`.
    package func request(defaultPort: Int32) -> [UInt8] {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        let hostHeader = port == defaultPort ? bracketed : "\(bracketed):\(port)"
        let text =
            "GET \(path) HTTP/1.1\r\n" + "Host: \(hostHeader)\r\n" + "Upgrade: websocket\r\n" + "Connection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\n" + "Sec-WebSocket-Version: 13\r\n" + "Sec-WebSocket-Protocol: mqtt\r\n"
            + "User-Agent: devsim\r\n\r\n"
        return Array(text.utf8)
    }

    /// Judges what the broker has sent so far.
    package func verdict(on bytes: some Collection<UInt8>) -> Verdict {
        let bytes = Array(bytes)
        guard let end = Self.headerEnd(in: bytes) else {
            return bytes.count > Self.maximumHeaderBytes
                ? .refused("the broker's answer to the WebSocket upgrade has no end of header in \(Self.maximumHeaderBytes) bytes")
                : .incomplete
        }
        let text = String(decoding: bytes[..<end], as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2).map(String.init)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            return .refused("the broker did not answer the WebSocket upgrade in HTTP: '\(Self.printable(statusLine))'")
        }
        let reason = parts.count > 2 ? " " + parts[2] : ""
        guard status == 101 else {
            return .refused("the broker refused the WebSocket upgrade: \(status)\(reason)")
        }
        var headers: [String: String] = [:]
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        guard headers["upgrade"]?.lowercased() == "websocket" else {
            return .refused("the broker's 101 answer does not upgrade to websocket (Upgrade: \(headers["upgrade"] ?? "missing"))")
        }
        // Its value changes with each attempt's key, so the reason leaves it out: one reason for
        // every attempt, counted and logged once.
        guard let accept = headers["sec-websocket-accept"], accept == Self.accept(for: key) else {
            return .refused(
                "the broker's Sec-WebSocket-Accept is \(headers["sec-websocket-accept"] == nil ? "missing" : "wrong"): "
                    + "not a WebSocket server, or a proxy in the way")
        }
        let protocols = headers["sec-websocket-protocol"]?.split(separator: ",").map { $0.trimmingSpaces.lowercased() } ?? []
        guard protocols == ["mqtt"] else {
            return .refused(
                "the broker accepted the WebSocket without the 'mqtt' subprotocol "
                    + "(Sec-WebSocket-Protocol: \(headers["sec-websocket-protocol"] ?? "missing")): check the path")
        }
        return .accepted(consumed: end + 4)
    }

    /// Where `\r\n\r\n` begins, if it is there.
    private static func headerEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    private static func printable(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.value >= 32 && $0.value < 127 ? Character($0) : "?" }.prefix(80))
    }

    /// `Sec-WebSocket-Accept` for `key`: base64 of the SHA-1 of the key and RFC 6455's GUID.
    package static func accept(for key: String) -> String {
        let input = Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8)
        var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
        _ = SHA1(input, input.count, &digest)
        return base64(digest)
    }

    /// 16 bytes from OpenSSL's generator, in base64.
    package static func randomKey() -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        if RAND_bytes(&bytes, 16) != 1 {
            var generator = SystemRandomNumberGenerator()
            for index in bytes.indices { bytes[index] = generator.next() }
        }
        return base64(bytes)
    }

    /// `EVP_EncodeBlock`: base64 with padding, no line breaks.
    static func base64(_ bytes: [UInt8]) -> String {
        var output = [UInt8](repeating: 0, count: (bytes.count + 2) / 3 * 4 + 1)
        let length = EVP_EncodeBlock(&output, bytes, Int32(bytes.count))
        return String(decoding: output[..<Int(length)], as: UTF8.self)
    }
}

extension StringProtocol {
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
