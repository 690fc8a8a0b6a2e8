/// An option libmosquitto refused while a client was being made: which one, and why.
public struct ClientSetupError: Error, Sendable, CustomStringConvertible {
    /// The scenario's name for the option (`tls`, `will`, …).
    public let option: String
    public let error: MosquittoError

    public var description: String { "\(option): \(error)" }
}
