/// `${VAR}` and `${VAR:-default}` in scalar values, filled from an environment dictionary.
///
/// `${VAR:-default}` uses the default when `VAR` is unset or empty, as the shell does. A `$` not
/// followed by `{` stays as it is, and so does `$$`: `$${VAR}` is the literal text `$${VAR}`.
package enum Interpolation {
    /// A `${...}` that cannot be filled.
    package struct Failure: Error, Sendable, Equatable {
        /// What is wrong, naming the variable: "environment variable 'HOST' is not set; ...".
        package var message: String

        package init(message: String) {
            self.message = message
        }
    }

    /// `text` with every `${...}` replaced from `environment`.
    package static func expand(_ text: String, environment: [String: String]) throws(Failure) -> String {
        try expandMarking(text, environment: environment).text
    }

    /// `expand`'s text, and where in it each value stands (a variable's or a default), as
    /// offsets of its UTF-8 bytes: data, which no template reads as placeholders.
    package static func expandMarking(_ text: String, environment: [String: String]) throws(Failure)
        -> (text: String, values: [Range<Int>])
    {
        guard text.contains("$") else { return (text, []) }
        var values: [Range<Int>] = []
        var result = ""
        var rest = Substring(text)
        // Once no `}` is left, looking for one again after each `$${` would make a long run of
        // them take quadratic time.
        var braceAhead = true
        while let dollar = rest.firstIndex(of: "$") {
            result += rest[..<dollar]
            let after = rest.index(after: dollar)
            if after < rest.endIndex, rest[after] == "$" {
                // `$$` and whatever follows it right away stay literal.
                result += "$$"
                rest = rest[rest.index(after: after)...]
                if rest.first == "{", braceAhead {
                    if let close = rest.firstIndex(of: "}") {
                        result += rest[...close]
                        rest = rest[rest.index(after: close)...]
                    } else {
                        braceAhead = false
                    }
                }
                continue
            }
            guard after < rest.endIndex, rest[after] == "{" else {
                result += "$"
                rest = rest[after...]
                continue
            }
            let bodyStart = rest.index(after: after)
            guard let close = rest[bodyStart...].firstIndex(of: "}") else {
                throw Failure(message: "'${' is not closed by '}'; write $$ for a literal dollar sign")
            }
            let start = result.utf8.count
            result += try value(of: rest[bodyStart..<close], environment: environment)
            if result.utf8.count > start { values.append(start..<result.utf8.count) }
            rest = rest[rest.index(after: close)...]
        }
        result += rest
        return (result, values)
    }

    private static func value(of body: Substring, environment: [String: String]) throws(Failure) -> String {
        var name = body
        var fallback: Substring?
        if let range = body.firstRange(of: ":-") {
            name = body[..<range.lowerBound]
            fallback = body[range.upperBound...]
        }
        guard isName(name) else {
            throw Failure(message: "'${\(body)}' is not a variable reference; expected ${NAME} or ${NAME:-default}")
        }
        if let value = environment[String(name)], !(fallback != nil && value.isEmpty) {
            return value
        }
        if let fallback { return String(fallback) }
        throw Failure(message: "environment variable '\(name)' is not set; set it or write ${\(name):-default}")
    }

    private static func isName(_ text: Substring) -> Bool {
        guard let first = text.first, first == "_" || first.isASCII && first.isLetter else { return false }
        return text.allSatisfy { $0 == "_" || $0.isASCII && ($0.isLetter || $0.isNumber) }
    }
}
