import Signals

/// JSON string literals for dry-run output, discovery configs and the service's events, off the
/// publish path: the payload encoder's escaping, as a `String`. (Log lines have their own in
/// Logging, which imports nothing: `JSONLiteral`.)
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
