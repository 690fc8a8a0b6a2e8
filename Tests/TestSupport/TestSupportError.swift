/// A failure of a test fixture, with a message meant for the person reading the test log.
public struct TestSupportError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
