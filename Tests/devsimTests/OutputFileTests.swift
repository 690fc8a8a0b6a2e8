import Foundation
import Testing
import TestSupport

/// `--report` and `report merge --output`: a path that cannot be written is found before the
/// work, and a write that fails at the end says why in a sentence, never as a Swift value.
@Suite(.tags(.integration), .notUnitOnly) struct OutputFileTests {
    @Test func aReportInADirectoryThatDoesNotExistIsRefusedBeforeConnecting() throws {
        let file = try RunFiles.scenario("report.yaml", RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: file) }
        let missing = URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("nodir").path
        // No broker listens on the port: a run that got as far as connecting would wait for the
        // connect timeout and exit 3.
        let result = try DevsimRun(
            file, port: try Loopback.freePort(), ["--report", missing + "/devsim.xml", "--report-format", "junit"], statsInterval: nil,
            timeout: 20)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("--report \(missing)/devsim.xml: directory '\(missing)' does not exist"), "\(result.stderr)")
        #expect(!result.stderr.contains("starting"), "refused before the run: \(result.stderr)")
    }

    @Test func aReportPathThatIsADirectoryIsRefused() throws {
        let file = try RunFiles.scenario("report.yaml", RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: file) }
        let directory = URL(fileURLWithPath: file).deletingLastPathComponent().path
        let result = try DevsimProcess.runToCompletion(
            args: ["run", file, "--port", String(try Loopback.freePort()), "--report", directory], timeout: 20)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("--report \(directory): '\(directory)' is a directory"), "\(result.stderr)")
    }

    /// Issue 38, item 9: each `--report` is written, in the format its name says.
    @Test func everyReportIsWrittenInItsFormat() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario("report.yaml", RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: file) }
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent()
        let paths = ["a.json", "b.html", "c.xml", "d.csv"].map { folder.appendingPathComponent($0).path }
        let result = try DevsimRun(file, port: broker.port, ["--messages", "3"] + paths.flatMap { ["--report", $0] })
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try RunFiles.report(paths[0])["published"] as? Int == 3)
        let texts = try paths.dropFirst().map { try String(contentsOfFile: $0, encoding: .utf8) }
        #expect(texts[0].hasPrefix("<!doctype html>"), "\(texts[0].prefix(80))")
        #expect(texts[1].contains("<testsuite name=\"devsim\""), "\(texts[1].prefix(200))")
        #expect(texts[2].hasPrefix("at_seconds,seconds,"), "\(texts[2].prefix(80))")
    }

    @Test func aReportThatCannotBeWrittenAtTheEndSaysWhyInASentence() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario("report.yaml", RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: file) }
        // /dev/full takes the open and refuses the write: the end of the run is where it fails.
        let result = try DevsimRun(file, port: broker.port, ["--messages", "3", "--report", "/dev/full"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "the report was not written: cannot write '/dev/full': No space left on device; the run itself ended as asked; "
                    + "exit 1 says the report is missing"), "\(result.stderr)")
        #expect(!result.stderr.contains("Error("), "no Swift value in a message: \(result.stderr)")
    }

    /// Issue 25, item 4: a run that failed its assertions keeps its exit code when the report
    /// cannot be written, and the log says where the verdict went.
    @Test func aFailedRunWhoseReportCannotBeWrittenKeepsItsVerdict() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario("report.yaml", RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, port: broker.port, ["--messages", "3", "--report", "/dev/full", "--expect", "published>1000"])
        #expect(result.status == 4, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "the report was not written: cannot write '/dev/full': No space left on device; the run's verdict is in this log "
                    + "and in the exit code, 4 (an --expect assertion or an --slo failed)"), "\(result.stderr)")
    }

    /// Issue 25, item 4: `--report devsim.xml` is JUnit XML, written to a file beside it and
    /// renamed into place: the old report's inode (a hard link keeps it) is left as it was,
    /// and no temporary file is left behind.
    @Test func theReportIsNamedForItsFormatAndRenamedIntoPlace() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario("report.yaml", RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: file) }
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent().path
        let report = folder + "/devsim.xml", kept = folder + "/kept"
        try "old".write(toFile: report, atomically: false, encoding: .utf8)
        try FileManager.default.linkItem(atPath: report, toPath: kept)
        let result = try DevsimRun(file, port: broker.port, ["--messages", "3", "--report", report, "--expect", "published>=3"])
        #expect(result.status == 0, "\(result.stderr)")
        let written = try String(contentsOfFile: report, encoding: .utf8)
        #expect(written.hasPrefix("<?xml") && written.contains("<testsuite name=\"devsim\""), "JUnit XML: \(written.prefix(200))")
        #expect(try String(contentsOfFile: kept, encoding: .utf8) == "old", "a new file took the name; the old one was not rewritten")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["devsim.xml", "kept", "report.yaml"])
    }

    @Test func aReportNameAndAFormatThatDisagreeAreRefusedBeforeConnecting() throws {
        let file = try RunFiles.scenario("report.yaml", RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: file) }
        let report = URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("x.xml").path
        let result = try DevsimProcess.runToCompletion(
            args: ["run", file, "--port", String(try Loopback.freePort()), "--report", report, "--report-format", "html"], timeout: 20)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(
            result.stderr.contains("--report \(report) names JUnit XML and --report-format html asks for an HTML page"), "\(result.stderr)")
        #expect(!result.stderr.contains("starting"), "refused before the run: \(result.stderr)")
    }

    @Test func aMergeOutputInADirectoryThatDoesNotExistIsRefusedBeforeReading() throws {
        let file = try RunFiles.scenario("a.json", "{}")
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimProcess.runToCompletion(
            args: ["report", "merge", "--output", "/nonexistent-devsim-dir/merged.json", file], timeout: 20)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(
            result.stderr.contains("--output /nonexistent-devsim-dir/merged.json: directory '/nonexistent-devsim-dir' does not exist"),
            "\(result.stderr)")
    }
}
