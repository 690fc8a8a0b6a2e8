/// A mistake in an `--expect` assertion; the message says what is allowed.
public struct AssertionError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
