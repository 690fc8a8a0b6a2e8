import Signals

/// JSON string literals for log lines and dry-run output, off the publish path: the payload
/// encoder's escaping, as a `String`.
enum JSONText {
    static func quoted(_ text: String) -> String {
        var bytes = PayloadBuffer()
        JSONWriter.writeString(text, into: &bytes)
        return bytes.text
    }
}
