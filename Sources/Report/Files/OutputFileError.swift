/// A file that could not be written (`OutputFile.write`): a sentence naming the file and the
/// system's reason, ready for the log as it is.
public struct OutputFileError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
