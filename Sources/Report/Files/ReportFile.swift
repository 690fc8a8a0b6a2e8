import FoundationEssentials

/// The report of a run, written to `--report` in its format: here, beside the writers, so that a
/// run, an empty shard and the tests write it the one way.
public enum ReportFile {
    /// Writes `report` to `path` as `format`: the JSON report, JUnit XML (which carries the JSON
    /// and the run's `exitCode`), the timeline as CSV (empty without one), or the HTML page.
    /// Whole or not at all (`OutputFile.write`); throws `OutputFileError` with the system's
    /// reason, or the encoder's error.
    public static func write(_ report: RunReport, as format: ReportFormat, exitCode: Int32, to path: String) throws {
        let json = try report.json()
        switch format {
        case .json:
            try OutputFile.write(json, to: path)
        case .junit:
            let xml = JUnitReport.xml(report, exitCode: exitCode, json: String(decoding: json, as: UTF8.self))
            try OutputFile.write(Array(xml.utf8), to: path)
        case .csv:
            try OutputFile.write(Array((report.timeline?.csv ?? "").utf8), to: path)
        case .html:
            try OutputFile.write(Array(HTMLReport.page(report).utf8), to: path)
        }
    }
}
