import Foundation

/// Azure IoT Hub's SAS token as Microsoft documents it, computed without devsim's code: the MAC by
/// `/usr/bin/openssl dgst -sha256 -mac HMAC -macopt hexkey:…` (the command Microsoft's DPS
/// documentation gives), base64 by `/usr/bin/base64`, URL-encoding by Foundation. What devsim
/// makes is checked against this.
public enum AzureSASReference {
    /// RFC 3986's unreserved characters, the only ones left as they are.
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    public static func urlEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved)!
    }

    /// base64(HMAC-SHA256(base64decode(key), message)), by openssl and base64.
    public static func mac(base64Key key: String, message: String) throws(TestSupportError) -> String {
        var padded = key
        while padded.count % 4 != 0 { padded += "=" }
        guard let bytes = Data(base64Encoded: padded) else { throw TestSupportError("not base64: \(key)") }
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let mac = try run(
            "/usr/bin/openssl", ["dgst", "-sha256", "-mac", "HMAC", "-macopt", "hexkey:\(hex)", "-binary"], input: Data(message.utf8))
        let text = try run("/usr/bin/base64", ["-w0"], input: mac)
        return String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `SharedAccessSignature sr=…&sig=…&se=…` for `resource`, signed with `key` (base64).
    public static func token(resource: String, base64Key key: String, expiry: Int64) throws(TestSupportError) -> String {
        let sr = urlEncoded(resource)
        let sig = try mac(base64Key: key, message: "\(sr)\n\(expiry)")
        return "SharedAccessSignature sr=\(sr)&sig=\(urlEncoded(sig))&se=\(expiry)"
    }

    private static func run(_ program: String, _ arguments: [String], input: Data) throws(TestSupportError) -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        do {
            try process.run()
        } catch {
            throw TestSupportError("cannot run \(program): \(error)")
        }
        stdin.fileHandleForWriting.write(input)
        try? stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestSupportError("\(program) exited with \(process.terminationStatus)") }
        return output
    }
}
