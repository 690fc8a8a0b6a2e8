import Foundation
import Testing

@testable import Report

/// Issue 26, item 3: `--report` written by the report module, in each format, and the file
/// checked and written whole, without a run or a process.
@Suite struct ReportFileTests {
    /// A folder of its own, removed after `body`.
    private func inFolder(_ body: (String) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("devsim-report-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try body(folder)
    }

    private static func report(timeline: Bool) -> RunReport {
        var totals = Totals()
        totals.figures[.scheduled] = 20
        totals.figures[.published] = 20
        var result = RunResult(
            totals: totals, connectionsUpAtEnd: 1, connections: 1, durationSeconds: 2, reason: .duration, latency: Histogram(),
            lateness: Histogram(), groups: [(name: "room", totals: totals)], connectionErrors: [:], allConnectedSeconds: 2)
        if timeline {
            var line = Timeline(intervalSeconds: 1, startedAt: 1_800_000_000)
            for second in 0..<2 {
                var point = Timeline.Point(at: Double(second), seconds: 1)
                point.scheduled = 10
                point.published = 10
                line.append(point)
            }
            result.timeline = line
        }
        var report = RunReport(result: result, scenarios: ["room.yaml"], seed: 7)
        report.expectations = [Verdict(assertion: "p99<50ms", passed: false, actual: 80, message: "80 ms (30 ms over)")]
        return report
    }

    private func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test func eachFormatIsWrittenAsItsWriterMakesIt() throws {
        try inFolder { folder in
            let report = Self.report(timeline: true)
            let json = String(decoding: try report.json(), as: UTF8.self)

            try ReportFile.write(report, as: .json, exitCode: 4, to: folder + "/r.json")
            #expect(try text(folder + "/r.json") == json)
            let read = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: folder + "/r.json")))
            #expect(read == report, "the JSON reads back as the report")

            try ReportFile.write(report, as: .junit, exitCode: 4, to: folder + "/r.xml")
            #expect(try text(folder + "/r.xml") == JUnitReport.xml(report, exitCode: 4, json: json))
            #expect(try text(folder + "/r.xml").contains("failures=\"1\""), "the failed assertion is a failed test case")

            try ReportFile.write(report, as: .csv, exitCode: 0, to: folder + "/r.csv")
            #expect(try text(folder + "/r.csv") == report.timeline?.csv)
            #expect(try text(folder + "/r.csv").split(separator: "\r\n").count == 3, "a header and a line per interval (RFC 4180)")

            try ReportFile.write(report, as: .html, exitCode: 0, to: folder + "/r.html")
            #expect(try text(folder + "/r.html") == HTMLReport.page(report))
        }
    }

    /// The command line refuses CSV without a timeline before the run; written anyway (a merged
    /// report), it is an empty file, not a failure.
    @Test func aCSVWithoutATimelineIsEmpty() throws {
        try inFolder { folder in
            try ReportFile.write(Self.report(timeline: false), as: .csv, exitCode: 0, to: folder + "/r.csv")
            #expect(try text(folder + "/r.csv") == "")
        }
    }

    @Test func aPathThatCannotTakeTheFileSaysWhy() throws {
        try inFolder { folder in
            #expect(OutputFile.problem(folder + "/report.json") == nil, "a new file in a writable folder")
            #expect(OutputFile.problem(folder + "/nodir/report.json") == "directory '\(folder)/nodir' does not exist")
            #expect(OutputFile.problem(folder) == "'\(folder)' is a directory")
            #expect(OutputFile.problem("") == "no file name")
            _ = FileManager.default.createFile(atPath: folder + "/plain", contents: Data())
            #expect(OutputFile.problem(folder + "/plain/report.json") == "'\(folder)/plain' is not a directory")
            #expect(OutputFile.problem("/dev/null") == nil, "a device is written as it is")
        }
    }

    /// A file replaced keeps its permissions, a link keeps pointing at it, and a write that
    /// fails says so in a sentence.
    @Test func aFileIsReplacedWholeAndAFailureIsASentence() throws {
        try inFolder { folder in
            let path = folder + "/report.json"
            try "old".write(toFile: path, atomically: false, encoding: .utf8)
            chmod(path, 0o600)
            try FileManager.default.createSymbolicLink(atPath: folder + "/link.json", withDestinationPath: path)
            try OutputFile.write(Array("new".utf8), to: folder + "/link.json")
            #expect(try text(path) == "new")
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600, "the replaced file's permissions")
            #expect(
                (try FileManager.default.attributesOfItem(atPath: folder + "/link.json")[.type] as? FileAttributeType) == .typeSymbolicLink)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["link.json", "report.json"], "no temporary left")
        }
        #expect(throws: OutputFileError("cannot write '/dev/full': No space left on device")) {
            try OutputFile.write(Array("x".utf8), to: "/dev/full")
        }
    }

    @Test func theFileNameChoosesTheFormatUnlessOneIsGiven() throws {
        #expect(try ReportFormat.of("devsim.xml", pathLabel: "--report", given: nil, givenLabel: "--report-format") == .junit)
        #expect(try ReportFormat.of("report", pathLabel: "--report", given: nil, givenLabel: "--report-format") == .json)
        #expect(try ReportFormat.of("notes.txt", pathLabel: "--report", given: .html, givenLabel: "--report-format") == .html)
        #expect(
            throws: ReportFormatError(
                "--report r.xml names JUnit XML and --report-format csv asks for the timeline as CSV: name the file r.csv, "
                    + "or leave out --report-format (the extension chooses)")
        ) { try ReportFormat.of("r.xml", pathLabel: "--report", given: .csv, givenLabel: "--report-format") }
    }
}
