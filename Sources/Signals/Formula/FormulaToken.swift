/// One word of a formula: a number, a text, a name (`temp_c`, `location.lat`, or anything
/// between backquotes), or an operator or punctuation mark; `end` after the last.
struct FormulaToken: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case number(Double)
        case text(String)
        case name(String)
        /// `+`, `<=`, `(`, `?` and the others, as written.
        case symbol(String)
        case end
    }

    var kind: Kind
    /// Where it starts, in Unicode scalars from the formula's start.
    var offset: Int

    /// The token as a message quotes it.
    var quoted: String {
        switch kind {
        case .number(let value): "'\(value == value.rounded() && Swift.abs(value) < 1e15 ? String(Int64(value)) : String(value))'"
        case .text(let text): "the text \"\(text)\""
        case .name(let name): "'\(name)'"
        case .symbol(let symbol): "'\(symbol)'"
        case .end: "the end of the formula"
        }
    }

    func isSymbol(_ symbol: String) -> Bool {
        kind == .symbol(symbol)
    }
}
