import Signals

/// JSON string literals for log lines and dry-run output, off the publish path: the payload
/// encoder's escaping, as a `String`.
package enum JSONText {
    package static func quoted(_ text: String) -> String {
        var bytes = PayloadBuffer()
        JSONWriter.writeString(text, into: &bytes)
        return bytes.text
    }

    /// `value` as a JSON number (`null` if it is not finite), with at most `decimals` digits
    /// after the point.
    package static func number(_ value: Double, decimals: Int? = nil) -> String {
        var bytes = PayloadBuffer()
        JSONWriter.writeNumber(value, decimals: decimals, into: &bytes)
        return bytes.text
    }
}
