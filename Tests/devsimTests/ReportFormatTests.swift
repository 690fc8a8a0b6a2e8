import Report
import Testing
@testable import devsim

/// Issue 25, item 4: the report's format comes from the file's name unless `--report-format`
/// says otherwise, and a name and a format that disagree are a usage error naming both.
@Suite struct ReportFormatTests {
    private func format(_ arguments: [String], _ environment: [String: String] = [:]) throws -> ReportFormat {
        guard case .run(let options) = try ArgumentParser.parse(["run", "s.yaml"] + arguments, environment: environment) else {
            Issue.record("not a run command")
            return .json
        }
        return options.reports.first?.format ?? .json
    }

    @Test(arguments: [
        ("devsim.xml", ReportFormat.junit), ("out/report.json", .json), ("timeline.csv", .csv), ("page.html", .html),
        ("PAGE.HTM", .html), ("Report.XML", .junit), ("notes.txt", .json), ("report", .json), ("dir.xml/report", .json),
        (".xml", .json),
    ])
    func theFileNameChooses(path: String, expected: ReportFormat) throws {
        #expect(try format(["--report", path]) == expected)
        #expect(try format([], ["DEVSIM_REPORT": path]) == expected)
    }

    /// A given format is taken for a name that says none, and must agree with one that does.
    @Test func aNameAndAFormatThatDisagreeAreAUsageErrorNamingBoth() throws {
        #expect(try format(["--report", "notes.txt", "--report-format", "junit"]) == .junit)
        #expect(try format(["--report", "report"], ["DEVSIM_REPORT_FORMAT": "html"]) == .html)
        #expect(try format(["--report", "r.xml", "--report-format", "junit"]) == .junit, "agreeing is no clash")
        #expect(
            throws: UsageError(
                "--report x.xml names JUnit XML and --report-format html asks for an HTML page: name the file x.html, "
                    + "or leave out --report-format (the extension chooses)")
        ) { try format(["--report", "x.xml", "--report-format", "html"]) }
        #expect(
            throws: UsageError(
                "DEVSIM_REPORT out/r.json names a JSON report and DEVSIM_REPORT_FORMAT csv asks for the timeline as CSV: "
                    + "name the file out/r.csv, or leave out DEVSIM_REPORT_FORMAT (the extension chooses)")
        ) { try format([], ["DEVSIM_REPORT": "out/r.json", "DEVSIM_REPORT_FORMAT": "csv"]) }
        // The flag wins over its variable, and is the one named.
        #expect(throws: UsageError.self) { try format(["--report", "a.csv", "--report-format", "json"], ["DEVSIM_REPORT_FORMAT": "csv"]) }
    }

    /// Issue 38, item 9: `--report a.json --report b.html` wrote b.html alone; each is written,
    /// in its own format, and `--report-format` holds for every one.
    @Test func severalReportsEachTakeTheirNamesFormat() throws {
        func reports(_ arguments: [String], _ environment: [String: String] = [:]) throws -> [ReportOutput] {
            guard case .run(let options) = try ArgumentParser.parse(["run", "s.yaml"] + arguments, environment: environment) else {
                return []
            }
            return options.reports
        }
        #expect(
            try reports(["--report", "a.json", "--report=b.html", "--report", "c"])
                == [.init(path: "a.json", format: .json), .init(path: "b.html", format: .html), .init(path: "c", format: .json)])
        #expect(
            try reports(["--report", "c", "--report", "b.html", "--report-format", "html"])
                == [.init(path: "c", format: .html), .init(path: "b.html", format: .html)])
        #expect(try reports(["--report", "b.html"], ["DEVSIM_REPORT": "a.json"]) == [.init(path: "b.html", format: .html)], "flags win")
        #expect(
            throws: UsageError(
                "--report a.json names a JSON report and --report-format html asks for an HTML page: name the file a.html, "
                    + "or leave out --report-format (the extension chooses)")
        ) { try reports(["--report", "a.json", "--report", "b.html", "--report-format", "html"]) }
        #expect(throws: UsageError("--report a.json is given twice: name each report's file once")) {
            try reports(["--report", "a.json", "--report", "a.json"])
        }
    }

    @Test func reportConvertRefusesAnOutputNamedForAnotherFormat() throws {
        #expect(
            throws: UsageError(
                "report html: --output capacity.json names a JSON report and 'report html' writes an HTML page: "
                    + "name the file capacity.html")
        ) { try ArgumentParser.parse(["report", "html", "r.json", "--output", "capacity.json"], environment: [:]) }
        #expect(throws: UsageError.self) { try ArgumentParser.parse(["report", "csv", "r.json", "--output", "t.html"], environment: [:]) }
        #expect(
            try ArgumentParser.parse(["report", "csv", "r.json", "--output", "t.txt"], environment: [:])
                == .reportConvert(ReportConvertOptions(format: .csv, report: "r.json", output: "t.txt")))
    }
}
