/// What `--report` writes, and how it is chosen: `--report-format` when given, otherwise the
/// file's extension, otherwise JSON. A CI that names its file `devsim.xml` gets JUnit XML
/// without a second flag, and a format that contradicts the name is a mistake, not a choice.
public enum ReportFormat: String, Equatable, CaseIterable, Sendable {
    case json, junit
    /// The timeline, a line per interval.
    case csv
    /// One self-contained page with the timeline's charts (`HTMLReport`).
    case html

    /// The format a file name's extension stands for, in any case: `.json`, `.xml` (JUnit),
    /// `.csv`, `.html` or `.htm`; `nil` for another extension or none.
    public init?(extensionOf path: String) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "json": self = .json
        case "xml": self = .junit
        case "csv": self = .csv
        case "html", "htm": self = .html
        default: return nil
        }
    }

    /// What a file of this format holds, for messages.
    public var words: String {
        switch self {
        case .json: "a JSON report"
        case .junit: "JUnit XML"
        case .csv: "the timeline as CSV"
        case .html: "an HTML page"
        }
    }

    /// The extension a file of this format is named with.
    public var fileExtension: String {
        switch self {
        case .json: "json"
        case .junit: "xml"
        case .csv: "csv"
        case .html: "html"
        }
    }

    /// The format to write `path` in, which `pathLabel` (`--report`, `DEVSIM_REPORT`) named:
    /// `given` when `--report-format` (or its variable, `givenLabel`) said one, else the one its
    /// extension stands for, else JSON. A given format that the extension contradicts is a
    /// usage error naming both, since one of the two is a mistake and devsim cannot tell which.
    public static func of(_ path: String, pathLabel: String, given: ReportFormat?, givenLabel: String) throws(ReportFormatError)
        -> ReportFormat
    {
        let named = ReportFormat(extensionOf: path)
        guard let given else { return named ?? .json }
        if let named, named != given {
            throw ReportFormatError(
                "\(pathLabel) \(path) names \(named.words) and \(givenLabel) \(given.rawValue) asks for \(given.words): "
                    + "name the file \(renamed(path, to: given)), or leave out \(givenLabel) (the extension chooses)")
        }
        return given
    }

    /// `report csv|html --output FILE`: the command says the format, and a file named for
    /// another is a usage error; a name with no known extension is taken as it is.
    public static func check(output path: String, of command: String, writes format: ReportFormat) throws(ReportFormatError) {
        guard let named = ReportFormat(extensionOf: path), named != format else { return }
        throw ReportFormatError(
            "\(command): --output \(path) names \(named.words) and '\(command)' writes \(format.words): "
                + "name the file \(renamed(path, to: format))")
    }

    /// `path` with its extension made `format`'s.
    private static func renamed(_ path: String, to format: ReportFormat) -> String {
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        guard let dot = path[slash...].lastIndex(of: "."), dot != slash else { return path + "." + format.fileExtension }
        return path[..<dot] + "." + format.fileExtension
    }
}
