/// Reads a formula into its syntax: a Pratt parser, each operator with its binding power.
///
/// From the loosest: `c ? a : b` (right to left), `||`, `&&`, `==` `!=`, `<` `<=` `>` `>=`,
/// `+` `-`, `*` `/` `%`, then unary `-` and `!`, then `^` (right to left: `2 ^ 3 ^ 2` is
/// `2 ^ 9`, and `-2 ^ 2` is `-(2 ^ 2)`, as in mathematics).
struct FormulaParser {
    /// Deeper nesting is refused: parsing, checking and compiling each recurse once a level. A
    /// sum of 100 fields, `a + b + …`, is 100 levels deep.
    static let maximumDepth = 200

    /// Left and right binding powers of the infix operators; a right power below the left makes
    /// the operator right-associative.
    static let infix: [String: (left: Int, right: Int)] = [
        "?": (2, 1), "||": (3, 3), "&&": (4, 4), "==": (5, 5), "!=": (5, 5), "<": (6, 6), "<=": (6, 6), ">": (6, 6),
        ">=": (6, 6), "+": (7, 7), "-": (7, 7), "*": (8, 8), "/": (8, 8), "%": (8, 8), "^": (10, 9),
    ]
    /// What a prefix operator's operand binds with: tighter than `*`, looser than `^`.
    static let prefixPower = 9

    private let tokens: [FormulaToken]
    private var position = 0
    private var depth = 0

    private init(_ tokens: [FormulaToken]) {
        self.tokens = tokens
    }

    static func parse(_ text: String) throws(FormulaError) -> FormulaSyntax {
        var parser = FormulaParser(try FormulaLexer.tokens(text))
        if parser.current.kind == .end {
            throw FormulaError(offset: 0, "the formula is empty: expected an expression such as temp_c * 1.8 + 32")
        }
        let syntax = try parser.expression(0)
        guard parser.current.kind == .end else {
            throw FormulaError(
                offset: parser.current.offset, "expected an operator or the end of the formula, found \(parser.current.quoted)")
        }
        return syntax
    }

    private var current: FormulaToken { tokens[position] }

    private mutating func advance() -> FormulaToken {
        defer { position = Swift.min(position + 1, tokens.count - 1) }
        return tokens[position]
    }

    /// An expression whose operators all bind tighter than `minimum`.
    private mutating func expression(_ minimum: Int) throws(FormulaError) -> FormulaSyntax {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else {
            throw FormulaError(offset: current.offset, "the formula nests deeper than \(Self.maximumDepth) levels")
        }
        var left = try prefix()
        while case .symbol(let symbol) = current.kind, let power = Self.infix[symbol], power.left > minimum {
            let token = advance()
            if symbol == "?" {
                let then = try expression(0)
                guard current.isSymbol(":") else {
                    throw FormulaError(
                        offset: current.offset, "expected ':' and the value when the condition is false, found \(current.quoted)")
                }
                _ = advance()
                let otherwise = try expression(power.right)
                left = FormulaSyntax(kind: .conditional(left, then, otherwise), offset: token.offset)
            } else {
                let right = try expression(power.right)
                left = FormulaSyntax(kind: .binary(symbol, left, right), offset: token.offset)
            }
            // A chain of left-associative operators deepens the tree without recursing here.
            guard left.height <= Self.maximumDepth else {
                throw FormulaError(offset: token.offset, "the formula nests deeper than \(Self.maximumDepth) levels")
            }
        }
        return left
    }

    /// A value, a name, a call, a parenthesised expression or a prefix operator and its operand.
    private mutating func prefix() throws(FormulaError) -> FormulaSyntax {
        let token = advance()
        switch token.kind {
        case .number(let value):
            return FormulaSyntax(kind: .number(value), offset: token.offset)
        case .text(let text):
            return FormulaSyntax(kind: .text(text), offset: token.offset)
        case .name(let name):
            if current.isSymbol("(") { return try call(name, at: token.offset) }
            switch name {
            case "true": return FormulaSyntax(kind: .bool(true), offset: token.offset)
            case "false": return FormulaSyntax(kind: .bool(false), offset: token.offset)
            default: return FormulaSyntax(kind: .name(name), offset: token.offset)
            }
        case .symbol("("):
            let inner = try expression(0)
            guard current.isSymbol(")") else {
                throw FormulaError(
                    offset: current.offset, "expected ')' to close the '(' at character \(token.offset + 1), found \(current.quoted)")
            }
            _ = advance()
            return inner
        case .symbol(let symbol) where symbol == "-" || symbol == "!":
            let operand = try expression(Self.prefixPower)
            return FormulaSyntax(kind: .unary(symbol, operand), offset: token.offset)
        case .end:
            throw FormulaError(offset: token.offset, "the formula ends where a value is expected")
        case .symbol:
            throw FormulaError(
                offset: token.offset, "expected a value (a number, a field, a function call or '('), found \(token.quoted)")
        }
    }

    /// `name(a, b, …)`, the current token its `(`.
    private mutating func call(_ name: String, at offset: Int) throws(FormulaError) -> FormulaSyntax {
        _ = advance()
        var arguments: [FormulaSyntax] = []
        if !current.isSymbol(")") {
            while true {
                arguments.append(try expression(0))
                guard current.isSymbol(",") else { break }
                _ = advance()
            }
        }
        guard current.isSymbol(")") else {
            throw FormulaError(offset: current.offset, "expected ',' or ')' in the arguments of \(name), found \(current.quoted)")
        }
        _ = advance()
        return FormulaSyntax(kind: .call(name, arguments), offset: offset)
    }
}
