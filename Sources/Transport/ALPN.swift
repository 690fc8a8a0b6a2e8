import COpenSSL

/// Application-Layer Protocol Negotiation (RFC 7301): the protocols a ClientHello offers
/// (`tls.alpn`; AWS IoT Core takes MQTT with a client certificate on port 443 only with
/// `x-amzn-mqtt-ca`), and the one the server chose.
package enum ALPN {
    /// The longest name the wire format's length byte can give.
    package static let longestName = 255

    /// Each name as a length byte and its bytes, one after another; `nil` when one is empty or
    /// longer than 255 bytes (the scenario's loader refuses those first).
    package static func wire(_ names: [String]) -> [UInt8]? {
        var wire: [UInt8] = []
        for name in names {
            let bytes = Array(name.utf8)
            guard (1...longestName).contains(bytes.count) else { return nil }
            wire.append(UInt8(bytes.count))
            wire += bytes
        }
        return wire
    }

    /// `SSL_get0_alpn_selected`: the protocol the server chose on `ssl` (an `SSL *`), or `nil`
    /// when it chose none (or the handshake is not done).
    package static func selected(on ssl: UnsafeMutableRawPointer) -> String? {
        var name: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(OpaquePointer(ssl), &name, &length)
        guard let name, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: name, count: Int(length)), as: UTF8.self)
    }
}
