/// Reads a plain decimal number: digits with an optional sign, fraction and exponent.
/// Swift's `Double(_:)` alone would also take `nan`, `inf` and hexadecimal, which no user means.
enum DecimalText {
    static func number(_ text: Substring) -> Double? {
        var sawDigit = false
        var index = text.startIndex
        if index < text.endIndex, text[index] == "-" || text[index] == "+" { index = text.index(after: index) }
        var sawPoint = false
        var sawExponent = false
        while index < text.endIndex {
            let character = text[index]
            if character.isASCII, character.isNumber {
                sawDigit = true
            } else if character == ".", !sawPoint, !sawExponent {
                sawPoint = true
            } else if character == "e" || character == "E", sawDigit, !sawExponent {
                sawExponent = true
                let next = text.index(after: index)
                if next < text.endIndex, text[next] == "-" || text[next] == "+" { index = next }
                sawDigit = false
            } else {
                return nil
            }
            index = text.index(after: index)
        }
        guard sawDigit, let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// Splits `250ms` into the number and the unit after it, allowing spaces between them.
    /// Quantities take no exponent: the unit starts at the first letter.
    static func split(_ text: Substring) -> (number: Double, unit: Substring)? {
        let trimmed = text.trimmingSpaces
        let unitStart =
            trimmed.firstIndex { !($0.isASCII && ($0.isNumber || "+-.".contains($0))) }
            ?? trimmed.endIndex
        guard let number = number(trimmed[..<unitStart].trimmingSpaces) else { return nil }
        return (number, trimmed[unitStart...].trimmingSpaces)
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var result = self
        while result.first == " " || result.first == "\t" { result = result.dropFirst() }
        while result.last == " " || result.last == "\t" { result = result.dropLast() }
        return result
    }
}
