import Foundation
import MQTT

extension Recording {
    /// The lines that open a recording: what it is, where from and when, as `#` comments a
    /// reader skips.
    public static func header(source: String, topics: [String], started: String) -> String {
        """
        # devsim recording: one message a line, {"t": seconds from the start, "topic", "qos", "retain",
        # "payload": its text, or "payloadBase64": its bytes}. The format: docs/recordings.md
        # from \(source), topics \(topics.joined(separator: " ")), started \(started)

        """
    }
}

extension RecordedMessage {
    /// The message as its line of a recording, without the line break: the payload as its text
    /// when it is UTF-8, else in base64; `qos` and `retain` only when they are not 0 and false.
    public var jsonLine: String {
        var line = "{\"t\":\(Self.seconds(time)),\"topic\":"
        Self.appendString(topic, to: &line)
        if qos != .atMostOnce { line += ",\"qos\":\(qos.rawValue)" }
        if retain { line += ",\"retain\":true" }
        if let text {
            line += ",\"payload\":"
            Self.appendString(text, to: &line)
        } else {
            line += ",\"payloadBase64\":\"\(Data(payload).base64EncodedString())\""
        }
        line += "}"
        return line
    }

    /// Seconds to the microsecond, without trailing zeros: `0.25`, `12`.
    static func seconds(_ time: Double) -> String {
        var text = String(format: "%.6f", time)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// `string` as a JSON string: quotes, backslashes and control characters escaped, the rest
    /// as it is.
    static func appendString(_ string: String, to line: inout String) {
        line += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": line += "\\\""
            case "\\": line += "\\\\"
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                line += String(format: "\\u%04x", scalar.value)
            default: line.unicodeScalars.append(scalar)
            }
        }
        line += "\""
    }
}
