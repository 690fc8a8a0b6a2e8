/// A formula as written, parsed: each part with where it starts, for the errors that point at it.
package struct FormulaSyntax: Sendable {
    package indirect enum Kind: Sendable {
        case number(Double)
        case text(String)
        case bool(Bool)
        /// A field of the message (`temp_c`, `location.lat`), or one of the device's values (`t`).
        case name(String)
        /// `-x`, `!x`.
        case unary(String, FormulaSyntax)
        /// `a + b`, `a && b`, … by its operator as written.
        case binary(String, FormulaSyntax, FormulaSyntax)
        /// `c ? a : b`.
        case conditional(FormulaSyntax, FormulaSyntax, FormulaSyntax)
        case call(String, [FormulaSyntax])
    }

    package var kind: Kind
    /// Unicode scalars from the formula's start: of its operator (`?` for a conditional), else of
    /// its first character.
    package var offset: Int
    /// Levels from here to its deepest leaf (1 for a leaf): the parser bounds it, since checking
    /// and compiling walk it recursively.
    private(set) var height = 1

    init(kind: Kind, offset: Int) {
        self.kind = kind
        self.offset = offset
        height =
            switch kind {
            case .number, .text, .bool, .name: 1
            case .unary(_, let operand): operand.height + 1
            case .binary(_, let left, let right): Swift.max(left.height, right.height) + 1
            case .conditional(let condition, let then, let otherwise): Swift.max(condition.height, then.height, otherwise.height) + 1
            case .call(_, let arguments): (arguments.map(\.height).max() ?? 0) + 1
            }
    }

    /// Every name it reads and where, in order: the fields a formula depends on.
    package var names: [(name: String, offset: Int)] {
        switch kind {
        case .number, .text, .bool: []
        case .name(let name): [(name, offset)]
        case .unary(_, let operand): operand.names
        case .binary(_, let left, let right): left.names + right.names
        case .conditional(let condition, let then, let otherwise): condition.names + then.names + otherwise.names
        case .call(_, let arguments): arguments.flatMap(\.names)
        }
    }
}
