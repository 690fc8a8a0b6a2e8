/// A run refused before anything connects: what the command line asks that the scenarios or
/// the files named cannot give, as a sentence naming the flag or the setting and what to do.
/// The command line says it as a usage error (exit 2).
public struct RunCheckError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
