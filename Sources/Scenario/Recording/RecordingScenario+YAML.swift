import Foundation

extension RecordingScenario {
    /// `text` as a YAML double-quoted scalar, whatever it holds (`:`, `#`, quotes, `- ` at the
    /// start, `yes`, line breaks): JSON's escapes, which YAML's double quotes share, and `\u`
    /// escapes for what libyaml would read as a line break or refuse (C1 controls, U+2028,
    /// U+2029, the byte order mark).
    package static func quoted(_ text: String) -> String {
        var result = ""
        RecordedMessage.appendString(text, to: &result)
        guard result.unicodeScalars.contains(where: needsEscape) else { return result }
        var escaped = ""
        for scalar in result.unicodeScalars {
            if needsEscape(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                escaped += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        (0x80...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029 || scalar.value == 0xFEFF
    }

    /// `seconds` as a scenario duration: `5s`, `250ms`, `1.5s`, to the millisecond.
    package static func duration(_ seconds: Double) -> String {
        let milliseconds = (seconds * 1000).rounded()
        if milliseconds < 1000 { return "\(Int(max(1, milliseconds)))ms" }
        return number(milliseconds / 1000, decimals: 3) + "s"
    }

    /// `seconds` between messages as a scenario rate: `1/5s`, `1/250ms`.
    package static func rate(interval seconds: Double) -> String {
        "1/" + duration(seconds)
    }

    /// `value` with at most `decimals` digits after the point, without trailing zeros or `-0`.
    package static func number(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "0" }
        let scale = pow(10, Double(min(max(decimals, 0), 15)))
        var rounded = (value * scale).rounded() / scale
        if rounded == 0 { rounded = 0 }
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        var text = "\(rounded)"
        // Swift writes small and large numbers with an exponent, which YAML reads as a number too.
        if text.contains("e") { return text }
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// A number rounded to `significant` digits: for statistics in comments and parameters that
    /// are estimates.
    package static func estimate(_ value: Double, significant: Int = 4) -> String {
        guard value.isFinite, value != 0 else { return "0" }
        let magnitude = Int(log10(abs(value)).rounded(.down))
        return number(value, decimals: max(0, significant - 1 - magnitude))
    }
}
