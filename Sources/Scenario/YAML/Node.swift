/// One YAML node with where it starts. Scalars stay text: what they mean (number, flag, duration)
/// depends on the key they belong to, which only the loader knows.
struct Node: Sendable {
    enum Style: Sendable {
        /// Unquoted: may be read as a number, a flag or null.
        case plain
        /// Quoted, a block scalar or tagged `!!str`: always a string.
        case quoted
    }

    struct Pair: Sendable {
        var key: Node
        var value: Node
    }

    enum Kind: Sendable {
        case scalar(String, Style)
        case sequence([Node])
        /// In file order: payload fields keep the order the scenario gives them.
        case mapping([Pair])
    }

    var kind: Kind
    var mark: Mark
    /// Where a scalar's text holds values of the environment (`${VAR}`), as UTF-8 offsets.
    var verbatim: [Range<Int>] = []

    /// The text of a scalar of any style.
    var scalarText: String? {
        if case .scalar(let text, _) = kind { return text }
        return nil
    }

    /// The text of a scalar as a template's source: a `{` of the environment's values doubled,
    /// which `Template` reads as a brace, so that `PW='Tr0ub{id}'` is sent as it is.
    var templateText: String? {
        guard let text = scalarText else { return nil }
        guard !verbatim.isEmpty else { return text }
        var bytes: [UInt8] = []
        for (offset, byte) in text.utf8.enumerated() {
            bytes.append(byte)
            if byte == UInt8(ascii: "{"), verbatim.contains(where: { $0.contains(offset) }) { bytes.append(byte) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// YAML 1.2 core schema null: `~`, `null` or nothing at all, unquoted.
    var isNull: Bool {
        guard case .scalar(let text, .plain) = kind else { return false }
        return text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL"
    }
}
