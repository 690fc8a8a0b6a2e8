extension Node {
    /// How the node reads in a "found ..." message: `'ten'`, `the string "5"`, `a list`.
    var summary: String {
        if isNull { return "nothing" }
        switch kind {
        case .scalar(let text, .plain): return "'\(Self.clipped(text))'"
        case .scalar(let text, .quoted): return "the string \"\(Self.clipped(text))\""
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        }
    }

    /// `text`, or its start and its length when it is too long to quote whole in a message.
    static func clipped(_ text: String) -> String {
        let start = text.prefix(100)
        guard start.endIndex < text.endIndex else { return text }
        return "\(start)… (\(text.count) characters)"
    }

    /// An integer from a plain scalar; quoted text stays text, as in JSON.
    var integer: Int? {
        guard case .scalar(let text, .plain) = kind else { return nil }
        return Int(text)
    }

    /// A number from a plain scalar.
    var number: Double? {
        guard case .scalar(let text, .plain) = kind else { return nil }
        return DecimalText.number(Substring(text))
    }

    /// `true` or `false` (YAML 1.2: not `yes`/`no`) from a plain scalar.
    var bool: Bool? {
        guard case .scalar(let text, .plain) = kind else { return nil }
        switch text {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default: return nil
        }
    }
}
