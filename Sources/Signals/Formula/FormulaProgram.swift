/// A checked formula compiled to a flat list of instructions over two stacks, one of numbers
/// (booleans as 0 and 1) and one of texts, the kind of every value known at load: evaluating it
/// is a loop over this list with no allocation (`FormulaMachine`). Shared by every device.
package struct FormulaProgram: Sendable {
    /// Every case's payload is plain bits (a text is an index into `texts`): switching over one
    /// then copies no reference, which was most of an evaluation's cost (callgrind).
    enum Instruction: Sendable {
        /// Pushes a number (a boolean as 0 or 1).
        case number(Double)
        /// Pushes the text `texts[index]`.
        case text(index: Int)
        /// Pushes the number or boolean in a field this publish; `slot` indexes `fields`.
        case readNumber(slot: Int)
        /// Pushes the text in a field this publish.
        case readText(slot: Int)
        /// The device's seconds since it started, its 1-based index, its id.
        case time, index, id
        case negate, not
        case add, subtract, multiply, divide, remainder, power
        case less, lessOrEqual, greater, greaterOrEqual, equal, notEqual
        case textEqual, textNotEqual
        /// Replaces its arguments, on top of the number stack, by its result.
        case call(FormulaFunction, arguments: Int)
        /// A draw from the stream of the `site`-th call of `random` or `gaussian` in the formula.
        case random(site: Int)
        case gaussian(site: Int)
        /// Pops a boolean and goes to `target` when it is false.
        case jumpUnless(target: Int)
        case jump(target: Int)
    }

    let instructions: [Instruction]
    /// The texts it writes out, as values.
    let texts: [SignalValue]
    /// The fields it reads, by their paths through the payload's groups, in slot order.
    package let fields: [String]
    /// What it gives: a number, true or false, or text.
    package let kind: ValueKind
    /// The most values each stack holds at once.
    let numberDepth: Int
    let textDepth: Int
    /// How many calls of `random` and `gaussian` it makes, each with a stream of its own.
    let randomSites: Int
}
