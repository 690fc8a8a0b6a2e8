/// A file `run --report` writes, and the format it is written in. A run writes one for each
/// `--report`: `--report devsim.xml --report page.html` gives CI its JUnit and people a page.
public struct ReportOutput: Equatable, Sendable {
    public var path: String
    public var format: ReportFormat

    public init(path: String, format: ReportFormat) {
        self.path = path
        self.format = format
    }

    /// The files `paths` name, which `pathLabel` gave, each in the format `ReportFormat.of`
    /// chooses: its extension's, or `given` (`givenLabel`), which every name must agree with.
    /// A file named twice is refused: its second report would replace the first.
    public static func outputs(_ paths: [String], pathLabel: String, given: ReportFormat?, givenLabel: String) throws(ReportFormatError)
        -> [ReportOutput]
    {
        var outputs: [ReportOutput] = []
        for path in paths {
            if outputs.contains(where: { $0.path == path }) {
                throw ReportFormatError("\(pathLabel) \(path) is given twice: name each report's file once")
            }
            outputs.append(
                ReportOutput(path: path, format: try ReportFormat.of(path, pathLabel: pathLabel, given: given, givenLabel: givenLabel)))
        }
        return outputs
    }
}
