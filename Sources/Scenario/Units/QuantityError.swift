/// Text that is not the quantity it should be: says what was expected and what was found.
public struct QuantityError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the text should have been, e.g. "a duration such as 250ms, 30s, 5m or 1h".
    public var expected: String
    /// The text as given.
    public var found: String

    public init(expected: String, found: String) {
        self.expected = expected
        self.found = found
    }

    /// `expected a duration such as 250ms, 30s, 5m or 1h, found '3 weeks'`.
    public var description: String { "expected \(expected), found '\(found)'" }
}
