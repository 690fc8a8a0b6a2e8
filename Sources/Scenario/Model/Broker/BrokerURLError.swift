/// Why a text is no broker URL, as a phrase for messages.
public struct BrokerURLError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
