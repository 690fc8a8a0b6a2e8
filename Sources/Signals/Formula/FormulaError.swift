/// A problem in a formula, at the character it is about (counted in Unicode scalars from the
/// formula's start, as a scenario file's columns are), so that the loader can point into the
/// expression.
package struct FormulaError: Error, Sendable, Equatable {
    package var offset: Int
    package var message: String
    /// Set when the formula reads another formula that could not be checked: that one's error
    /// is said where it is, and this one says nothing more.
    package var isConsequence = false

    package init(offset: Int, _ message: String) {
        self.offset = offset
        self.message = message
    }

    static func consequence(at offset: Int) -> FormulaError {
        var error = FormulaError(offset: offset, "")
        error.isConsequence = true
        return error
    }
}
