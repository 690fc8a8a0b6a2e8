/// A problem in a scenario file, at a place a person can go to.
public struct Diagnostic: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    /// 1-based.
    public var line: Int
    /// 1-based.
    package var column: Int
    public var message: String

    public init(file: String, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `FILE:LINE:COLUMN: message`, the form editors and CI logs link to.
    public var description: String { "\(file):\(line):\(column): \(message)" }
}
