import Foundation
import MQTT
import Report
import Scenario
import Service
import Simulator
import Synchronization
import Testing
import TestSupport

/// Issue 39, item 4: `devsim run` and `devsim record` carried out in-process by the library's
/// `Run` and `Record`, as the command line hands them its options: the services started before
/// the fleet, the report written, the exit code returned as a value, and the checks that refuse
/// a run before anything connects.
@Suite(.tags(.integration), .notUnitOnly) struct InProcessRunTests {
    /// What a run logged, a line each, from any thread.
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        /// Hears each line as it is logged, on the thread that logs it.
        private let hears: @Sendable (String) -> Void

        init(hearing hears: @escaping @Sendable (String) -> Void = { _ in }) { self.hears = hears }

        func append(_ line: String) {
            lines.withLock { $0.append(line) }
            hears(line)
        }
        var all: [String] { lines.withLock { $0 } }
        var text: String { all.joined() }

        /// The index of the first line holding `text`.
        func first(_ text: String) -> Int? { all.firstIndex { $0.contains(text) } }

        var logger: Logger { Logger(minimumLevel: .info) { self.append($0) } }
    }

    /// `devsim run FILE` against `port` for `messages` messages, as the command line fills it.
    private func options(_ file: String, port: UInt16, messages: Int = 3) -> RunOptions {
        var options = RunOptions()
        options.scenarios = [file]
        options.host = "127.0.0.1"
        options.port = Int(port)
        options.messages = messages
        options.statsInterval = nil
        return options
    }

    /// The run's exit code; its signals are left to the test runner's process.
    private func run(_ options: RunOptions, _ lines: Lines, output: Lines = Lines()) -> ExitCode {
        var run = Run(
            options: options, environment: [:], version: "test", logger: lines.logger, output: { output.append($0) },
            errors: { lines.append($0) })
        run.takesSignals = false
        return run.execute()
    }

    @Test func theEndpointServesFromBeforeTheFleetStartsToAfterTheRunConcludesAndTheReportHasTheRunsCode() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario("run.yaml", RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: file) }
        let report = URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("report.json").path
        let junit = URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("report.xml").path
        var options = options(file, port: broker.port)
        options.http = HTTPAddress(port: 0)
        options.reports = [ReportOutput(path: report, format: .json), ReportOutput(path: junit, format: .junit)]
        options.expectations = [try Assertion("published>=3")]
        // The endpoint's port, once it says it serves; and whether it answered as the run said it
        // had finished, which is the conclusion's first line.
        let port = Mutex<Int?>(nil)
        let answeredAtTheEnd = Mutex<Int?>(nil)
        let lines = Lines { line in
            if let range = line.range(of: "serving http://127.0.0.1:") {
                port.withLock { $0 = Int(line[range.upperBound...].prefix { $0.isNumber }) }
            }
            if line.contains("finished: "), let port = port.withLock({ $0 }) {
                answeredAtTheEnd.withLock { $0 = (try? HTTPGet.request(port: port, path: "/healthz"))?.status }
            }
        }
        #expect(run(options, lines) == .success, "\(lines.text)")
        #expect(answeredAtTheEnd.withLock { $0 } == 200, "the endpoint serves while the run concludes")
        let served = try #require(port.withLock { $0 })
        #expect(throws: TestSupportError.self, "the endpoint has stopped once the run returns") {
            try HTTPGet.request(port: served, path: "/healthz")
        }
        let serving = try #require(lines.first("serving http://127.0.0.1:"), "\(lines.text)")
        let starting = try #require(lines.first("starting"), "\(lines.text)")
        let finished = try #require(lines.first("finished: "), "\(lines.text)")
        let judged = try #require(lines.first("expectations: all 1 passed"), "\(lines.text)")
        #expect(serving < starting && starting < finished && finished < judged, "\(lines.text)")
        #expect(try RunFiles.report(report)["published"] as? Int == 3)
        #expect(try String(contentsOfFile: junit, encoding: .utf8).contains("<property name=\"exitCode\" value=\"0\"/>"))
    }

    /// A broken assertion is exit 4, which the JUnit report says; a report that cannot be written
    /// leaves that code alone, and turns a run that ended as asked into exit 1.
    @Test func aBrokenAssertionIsFourAndAMissingReportFailsOnlyARunThatSucceeded() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario("run.yaml", RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: file) }
        let junit = URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("report.xml").path
        var broken = options(file, port: broker.port)
        broken.expectations = [try Assertion("published>=1000")]
        broken.reports = [ReportOutput(path: junit, format: .junit), ReportOutput(path: "/dev/full", format: .json)]
        let lines = Lines()
        #expect(run(broken, lines) == .expectationFailed, "\(lines.text)")
        #expect(try String(contentsOfFile: junit, encoding: .utf8).contains("<property name=\"exitCode\" value=\"4\"/>"))
        #expect(lines.text.contains("the report was not written: cannot write '/dev/full'"), "\(lines.text)")
        #expect(lines.text.contains("the exit code, 4 (an --expect assertion or an --slo failed)"), "\(lines.text)")

        var asked = options(file, port: broker.port)
        asked.reports = [ReportOutput(path: "/dev/full", format: .json)]
        let again = Lines()
        #expect(run(asked, again) == .failure, "\(again.text)")
        #expect(again.text.contains("the run itself ended as asked; exit 1 says the report is missing"), "\(again.text)")
    }

    /// The endpoint starts first: one that cannot listen refuses the run (exit 2) before the
    /// fleet starts, and nothing after it starts.
    @Test func anEndpointThatCannotListenRefusesTheRunBeforeTheFleetStarts() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario("run.yaml", RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: file) }
        var options = options(file, port: broker.port)
        // The broker's own port: taken.
        options.http = HTTPAddress(port: Int(broker.port))
        let lines = Lines()
        #expect(run(options, lines) == .usage, "\(lines.text)")
        #expect(lines.text.contains("--http: "), "\(lines.text)")
        #expect(lines.first("starting") == nil, "\(lines.text)")
    }

    @Test func noBrokerIsThreeEvenWithABrokenAssertion() throws {
        let file = try RunFiles.scenario("run.yaml", RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: file) }
        var options = options(file, port: try Loopback.freePort())
        options.connectTimeout = .seconds(1)
        options.expectations = [try Assertion("published>=1")]
        let lines = Lines()
        #expect(run(options, lines) == .noConnection, "\(lines.text)")
    }

    /// A dry run ends once prepared: its messages on the output, the exit code 0.
    @Test func aDryRunPrintsWhatWouldBePublished() throws {
        let file = try RunFiles.scenario("run.yaml", RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: file) }
        var options = options(file, port: try Loopback.freePort())
        options.dryRun = true
        let (lines, output) = (Lines(), Lines())
        #expect(run(options, lines, output: output) == .success, "\(lines.text)")
        #expect(output.text.split(separator: "\n").filter { $0.contains("\"topic\":\"t\"") }.count == 3, "\(output.text)")
    }

    /// `record`'s checks come before anything connects (no broker listens here): each a usage
    /// error naming its flag.
    @Test func aRecordingsFlagsAreCheckedBeforeAnythingConnects() throws {
        let folder = try RunFiles.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func record(_ adjust: (inout RecordSettings) -> Void) -> (ExitCode, String) {
            var settings = RecordSettings(path: "")
            settings.port = 1
            adjust(&settings)
            let lines = Lines()
            let code = Record(
                settings: settings, output: folder.appendingPathComponent("rec").path, force: false, infer: nil, logger: lines.logger
            ).execute()
            return (code, lines.text)
        }
        let (keyless, said) = record { $0.tls = TLSSettings(certificate: "/nonexistent/cert.pem") }
        #expect(keyless == .usage)
        #expect(said.contains("--cert needs --key, its key"), "\(said)")
        let (clash, saidAgain) = record {
            $0.url = try? BrokerURL.parse("mqtt://127.0.0.1:1883")
            $0.host = "127.0.0.1"
        }
        #expect(clash == .usage)
        #expect(saidAgain.contains("--url gives the host and the port: leave out --host"), "\(saidAgain)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("rec").path), "refused before --output is made")
    }
}
