import COpenSSL

/// Azure IoT Hub's shared access signatures, made with OpenSSL: the password of a device that
/// authenticates with a symmetric key. Microsoft's algorithm ("SAS token structure" in IoT Hub's
/// documentation; azure-sdk-for-c's `az_iot_hub_client_sas.c` for the encoding):
///
///     SharedAccessSignature sr=<urlenc resource>&sig=<urlenc base64 HMAC-SHA256(key, sr "\n" se)>&se=<expiry>
///
/// where the key is the device's key base64-decoded, `se` is seconds since the epoch and there is
/// no `skn` (that is for a hub's shared access policies, not a device's own key).
package enum SASToken {
    /// The token for `resource` (`<hub>/devices/<id>`) signed with `key` (decoded), valid until
    /// `expiry` (seconds since the epoch). The string signed is the URL-encoded resource as sent.
    package static func make(resource: String, key: [UInt8], expiry: Int64) -> String {
        let encodedResource = urlEncoded(resource)
        let signature = base64(hmacSHA256(key: key, message: Array("\(encodedResource)\n\(expiry)".utf8)))
        return "SharedAccessSignature sr=\(encodedResource)&sig=\(urlEncoded(signature))&se=\(expiry)"
    }

    /// The same with the key as Azure shows it, base64; nil when it is not base64.
    package static func make(resource: String, key: String, expiry: Int64) -> String? {
        decodeKey(key).map { make(resource: resource, key: $0, expiry: expiry) }
    }

    /// A device's key derived from its DPS enrollment group's key, as Azure derives it:
    /// base64(HMAC-SHA256(base64decode(groupKey), registration id)); nil when the group key is
    /// not base64.
    package static func deriveDeviceKey(groupKey: String, registrationID: String) -> String? {
        decodeKey(groupKey).map { base64(hmacSHA256(key: $0, message: Array(registrationID.utf8))) }
    }

    /// The bytes of a base64 key, with or without its `=` padding; nil for anything else (another
    /// character, padding inside, a length no base64 has). `EVP_DecodeBlock`, which takes only
    /// whole 4-character groups and counts padding as zero bytes, so the padding is put back for
    /// it and its bytes taken off after.
    package static func decodeKey(_ text: String) -> [UInt8]? {
        var body = Array(text.utf8)
        var padding = 0
        while body.last == UInt8(ascii: "="), padding < 2 {
            body.removeLast()
            padding += 1
        }
        guard !body.isEmpty, body.count % 4 != 1, body.allSatisfy(isBase64Character) else { return nil }
        let missing = (4 - body.count % 4) % 4
        // Padding given must be the padding the length needs.
        guard padding == 0 || padding == missing else { return nil }
        let padded = body + Array(repeating: UInt8(ascii: "="), count: missing)
        var out = [UInt8](repeating: 0, count: padded.count / 4 * 3)
        let count = out.withUnsafeMutableBufferPointer { out in
            padded.withUnsafeBufferPointer { input in EVP_DecodeBlock(out.baseAddress, input.baseAddress, Int32(input.count)) }
        }
        guard count >= 0, Int(count) == out.count else { return nil }
        return Array(out.prefix(out.count - missing))
    }

    private static func isBase64Character(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "+"), UInt8(ascii: "/"):
            true
        default: false
        }
    }

    /// Base64 with padding: `EVP_EncodeBlock`.
    package static func base64(_ bytes: [UInt8]) -> String {
        var out = [UInt8](repeating: 0, count: (bytes.count + 2) / 3 * 4 + 1)
        let count = out.withUnsafeMutableBufferPointer { out in
            bytes.withUnsafeBufferPointer { input in EVP_EncodeBlock(out.baseAddress, input.baseAddress, Int32(input.count)) }
        }
        return String(decoding: out.prefix(Int(max(0, count))), as: UTF8.self)
    }

    /// HMAC-SHA256: OpenSSL's one-shot `HMAC` with `EVP_sha256` (not deprecated in 3.0, unlike
    /// `HMAC_CTX`).
    package static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = key.withUnsafeBufferPointer { key in
            message.withUnsafeBufferPointer { message in
                out.withUnsafeMutableBufferPointer { out in
                    HMAC(EVP_sha256(), key.baseAddress, Int32(key.count), message.baseAddress, message.count, out.baseAddress, &length)
                }
            }
        }
        return Array(out.prefix(Int(length)))
    }

    /// Percent-encoding of everything but RFC 3986's unreserved characters, in upper-case hex,
    /// as Azure's C SDK writes it (`/` as `%2F`, `+` as `%2B`, `=` as `%3D`).
    package static func urlEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
