/// A report's file name and its format that disagree: the message names both, and the command
/// line says it as a usage error.
public struct ReportFormatError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
