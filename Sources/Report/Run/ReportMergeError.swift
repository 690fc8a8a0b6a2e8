/// A report that cannot be merged, and which.
public struct ReportMergeError: Error, Equatable, CustomStringConvertible {
    public var file: String?
    public var message: String

    public init(file: String?, _ message: String) {
        self.file = file
        self.message = message
    }

    public var description: String { file.map { "\($0): \(message)" } ?? message }
}
