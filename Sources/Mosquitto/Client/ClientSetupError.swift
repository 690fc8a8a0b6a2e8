/// An option libmosquitto refused while a client was being made: which one, and why.
public struct ClientSetupError: Error, Sendable, CustomStringConvertible {
    /// The scenario's name for the option (`tls`, `will`, …).
    public let option: String
    public let error: MosquittoError
    /// What was wrong, when devsim knows more than the code says: why a TLS context could not
    /// be made of the settings (a file OpenSSL cannot use).
    package var reason: String? = nil

    public var description: String { "\(option): \(reason ?? error.description)" }
}
