/// A place in a scenario file, for messages about what was written there.
public struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    /// 1-based.
    public var line: Int
    /// 1-based.
    package var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `FILE:LINE:COLUMN`.
    public var description: String { "\(file):\(line):\(column)" }
}
