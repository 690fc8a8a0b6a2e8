/// Cuts a formula into tokens. Offsets count Unicode scalars, as libyaml counts a scenario
/// file's columns, so an error can name the column of the token it is about.
enum FormulaLexer {
    /// Operators and punctuation, the two-character ones first so that `<=` is not `<` then `=`.
    static let symbols = ["<=", ">=", "==", "!=", "&&", "||", "+", "-", "*", "/", "%", "^", "(", ")", ",", "?", ":", "<", ">", "!"]

    /// What people write from other languages, and what it is here.
    static let misspelt = [
        "**": "power is '^' here: write 2 ^ 3", "=": "expected '==' to compare", "&": "expected '&&' (and)",
        "|": "expected '||' (or)",
    ]

    static func tokens(_ text: String) throws(FormulaError) -> [FormulaToken] {
        let scalars = Array(text.unicodeScalars)
        var tokens: [FormulaToken] = []
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            let start = index
            if scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" {
                index += 1
            } else if isDigit(scalar) || (scalar == "." && index + 1 < scalars.count && isDigit(scalars[index + 1])) {
                tokens.append(FormulaToken(kind: .number(try number(scalars, &index)), offset: start))
            } else if isNameStart(scalar) {
                tokens.append(FormulaToken(kind: .name(name(scalars, &index)), offset: start))
            } else if scalar == "`" {
                tokens.append(FormulaToken(kind: .name(try quotedName(scalars, &index)), offset: start))
            } else if scalar == "\"" || scalar == "'" {
                tokens.append(FormulaToken(kind: .text(try quotedText(scalars, &index)), offset: start))
            } else {
                tokens.append(FormulaToken(kind: .symbol(try symbol(scalars, &index)), offset: start))
            }
        }
        tokens.append(FormulaToken(kind: .end, offset: scalars.count))
        return tokens
    }

    static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        ("0"..."9").contains(scalar)
    }

    static func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || scalar.properties.isAlphabetic
    }

    static func isNamePart(_ scalar: Unicode.Scalar) -> Bool {
        isNameStart(scalar) || isDigit(scalar)
    }

    /// `12`, `1.5`, `.5`, `1e3`, `2.5E-3`.
    private static func number(_ scalars: [Unicode.Scalar], _ index: inout Int) throws(FormulaError) -> Double {
        let start = index
        func digits() {
            while index < scalars.count, isDigit(scalars[index]) { index += 1 }
        }
        digits()
        if index < scalars.count, scalars[index] == "." {
            index += 1
            digits()
        }
        if index < scalars.count, scalars[index] == "e" || scalars[index] == "E" {
            var next = index + 1
            if next < scalars.count, scalars[next] == "+" || scalars[next] == "-" { next += 1 }
            if next < scalars.count, isDigit(scalars[next]) {
                index = next
                digits()
            }
        }
        let text = String(String.UnicodeScalarView(scalars[start..<index]))
        if index < scalars.count, isNamePart(scalars[index]) || scalars[index] == "." {
            throw FormulaError(
                offset: index, "unexpected '\(scalars[index])' after the number \(text); an operator goes between: \(text) * x")
        }
        guard let value = Double(text), value.isFinite else {
            throw FormulaError(offset: start, "\(text) is too large a number")
        }
        return value
    }

    /// A name, with the dotted path into groups (`location.lat`).
    private static func name(_ scalars: [Unicode.Scalar], _ index: inout Int) -> String {
        let start = index
        while index < scalars.count {
            if isNamePart(scalars[index]) {
                index += 1
            } else if scalars[index] == ".", index + 1 < scalars.count, isNameStart(scalars[index + 1]) {
                index += 2
            } else {
                break
            }
        }
        return String(String.UnicodeScalarView(scalars[start..<index]))
    }

    /// `` `total-energy` ``: a field whose name is not a plain word.
    private static func quotedName(_ scalars: [Unicode.Scalar], _ index: inout Int) throws(FormulaError) -> String {
        let start = index
        index += 1
        while index < scalars.count, scalars[index] != "`" { index += 1 }
        guard index < scalars.count else {
            throw FormulaError(offset: start, "the name that starts here has no closing '`'")
        }
        index += 1
        guard index - start > 2 else { throw FormulaError(offset: start, "expected a field's name between the backquotes") }
        return String(String.UnicodeScalarView(scalars[(start + 1)..<(index - 1)]))
    }

    /// `"high"` or `'high'`, with `\"`, `\'`, `\\`, `\n` and `\t`.
    private static func quotedText(_ scalars: [Unicode.Scalar], _ index: inout Int) throws(FormulaError) -> String {
        let start = index
        let quote = scalars[index]
        var text = String.UnicodeScalarView()
        index += 1
        while index < scalars.count, scalars[index] != quote {
            if scalars[index] == "\\" {
                guard index + 1 < scalars.count else { break }
                switch scalars[index + 1] {
                case "\"", "'", "\\": text.append(scalars[index + 1])
                case "n": text.append("\n")
                case "t": text.append("\t")
                default:
                    throw FormulaError(
                        offset: index, "unknown escape '\\\(scalars[index + 1])' in a text: expected \\\", \\', \\\\, \\n or \\t")
                }
                index += 2
            } else {
                text.append(scalars[index])
                index += 1
            }
        }
        guard index < scalars.count else {
            throw FormulaError(offset: start, "the text that starts here has no closing \(quote)")
        }
        index += 1
        return String(text)
    }

    private static func symbol(_ scalars: [Unicode.Scalar], _ index: inout Int) throws(FormulaError) -> String {
        let two = index + 1 < scalars.count ? String(String.UnicodeScalarView(scalars[index...(index + 1)])) : ""
        let one = String(scalars[index])
        if let hint = misspelt[two] ?? (symbols.contains(two) ? nil : misspelt[one]) {
            throw FormulaError(offset: index, "unexpected '\(misspelt[two] == nil ? one : two)': \(hint)")
        }
        for symbol in [two, one] where symbols.contains(symbol) {
            index += symbol.unicodeScalars.count
            return symbol
        }
        throw FormulaError(offset: index, "unexpected '\(one)' in a formula")
    }
}
