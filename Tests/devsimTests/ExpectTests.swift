import Foundation
import Report
#if canImport(FoundationXML)
    import FoundationXML
#endif
import Service
import Simulator
import Testing
import TestSupport
@testable import devsim

@Suite struct ExpectArgumentTests {
    private func run(_ arguments: [String], _ environment: [String: String] = [:]) throws -> RunOptions {
        guard case .run(let options) = try ArgumentParser.parse(["run"] + arguments, environment: environment) else {
            Issue.record("not a run command")
            return RunOptions()
        }
        return options
    }

    @Test func expectIsRepeatableAndKeepsOrder() throws {
        let options = try run(["--expect", "rate>=99.5%", "s.yaml", "--expect=p99<50ms,failed==0", "--expect", "lost==0"])
        #expect(options.expectations.map(\.text) == ["rate>=99.5%", "p99<50ms", "failed==0", "lost==0"])
        #expect(options.scenarios == ["s.yaml"])
        #expect(try run(["s.yaml"]).expectations.isEmpty)
    }

    @Test func theEnvironmentHoldsSeveralAndAFlagReplacesThem() throws {
        let environment = ["DEVSIM_EXPECT": "rate>=99%; connected==100%", "DEVSIM_REPORT_FORMAT": "junit"]
        let fromEnvironment = try run(["s.yaml"], environment)
        #expect(fromEnvironment.expectations.map(\.text) == ["rate>=99%", "connected==100%"])
        #expect(fromEnvironment.reportFormat == .junit)
        let flagged = try run(["s.yaml", "--expect", "failed==0", "--report-format", "json"], environment)
        #expect(flagged.expectations.map(\.text) == ["failed==0"])
        #expect(flagged.reportFormat == .json)
    }

    @Test func otherFlagsGivenTwiceStillTakeTheLastValue() throws {
        #expect(try run(["--port", "1", "--port", "2", "s.yaml"]).port == 2)
    }

    @Test func badAssertionsAreUsageErrorsNamingThem() {
        #expect(throws: UsageError("--expect 'rate>=99.5': rate is a percentage; write it with %, such as rate>=99.5%")) {
            try run(["--expect", "rate>=99.5", "s.yaml"])
        }
        #expect(throws: UsageError("DEVSIM_EXPECT 'p99<50': p99 is a duration; give a unit, ms, s or us, such as p99<50ms")) {
            try run(["s.yaml"], ["DEVSIM_EXPECT": "p99<50"])
        }
        #expect(throws: UsageError("--report-format: expected json, junit, csv or html, found 'xml'")) {
            try run(["--report-format", "xml", "s.yaml"])
        }
        #expect(throws: UsageError("--expect needs a value (ASSERTION)")) { try run(["s.yaml", "--expect"]) }
    }

    @Test func helpAndExitCodesMentionVerdicts() {
        #expect(ExitCode.expectationFailed.rawValue == 4)
        #expect(Help.general.contains("4 an --expect assertion failed"))
        let run = Help.text(topic: "run")
        #expect(run.contains("--expect ASSERTION"))
        #expect(run.contains("--report-format json|junit"))
        #expect(run.contains("DEVSIM_REPORT_FORMAT"))
    }
}

/// `--expect` and `--report-format junit` on the built binary against a real mosquitto.
@Suite(.tags(.integration), .notUnitOnly) struct ExpectProcessTests {
    private func scenario() throws -> String {
        try ScenarioText(name: "meters", group: "meter", count: 4, topic: "m/{index}", publish: "20/s", qos: 1).file("meters.yaml")
    }

    @Test func aRunThatMeetsItsExpectationsExits0AndReportsThem() throws {
        let broker = try MosquittoBroker()
        let scenario = try scenario()
        let report = scenario + ".json"
        let result = try DevsimRun(
            scenario, port: broker.port,
            [
                "--duration", "1s", "--report", report, "--expect", "rate>=90%", "--expect", "connected==100%",
                "--expect", "failed==0,published>0,p99<5s,lateness.p99<5s",
            ], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("expect connected==100%: passed, 100%"), "\(result.stderr)")
        #expect(result.stderr.contains("expectations: all 6 passed"), "\(result.stderr)")
        let figures = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        let verdicts = try #require(figures["expectations"] as? [[String: Any]])
        #expect(
            verdicts.map { $0["assertion"] as? String } == [
                "rate>=90%", "connected==100%", "failed==0", "published>0", "p99<5s", "lateness.p99<5s",
            ])
        #expect(verdicts.allSatisfy { $0["passed"] as? Bool == true })
        #expect(verdicts[1]["actual"] as? Double == 100)
    }

    @Test func aBrokenExpectationExits4AndNamesIt() throws {
        let broker = try MosquittoBroker()
        let scenario = try scenario()
        let result = try DevsimRun(
            scenario, port: broker.port,
            ["--duration", "1s", "--quiet", "--expect", "published>=1000000", "--expect", "failed==0", "--expect", "rate>=101%"],
            timeout: 60)
        #expect(result.status == 4, "\(result.stderr)")
        #expect(result.stderr.contains("expect published>=1000000: FAILED, "), "\(result.stderr)")
        #expect(result.stderr.contains(" short)"), "\(result.stderr)")
        #expect(result.stderr.contains("expect rate>=101%: FAILED, 100% (1 point short)"), "\(result.stderr)")
        #expect(result.stderr.contains("expectations: 2 of 3 failed: published>=1000000, rate>=101%"), "\(result.stderr)")
        #expect(!result.stderr.contains("expect failed==0: passed"), "--quiet keeps only the failures")
    }

    /// Each of these is knowable from the scenario and the flags: refused before connecting (no
    /// broker listens), not failed after the run, or passed on a figure never measured.
    @Test(arguments: [
        ("qos: 1\n    publish: 20/s", "lost==0", "lost==0: lost is measured by the closed-loop check; add --verify"),
        ("qos: 1\n    publish: 20/s", "e2e.p99<5ms", "e2e.p99<5ms: e2e.p99 is measured by the closed-loop check; add --verify"),
        (
            "qos: 0\n    publish: 20/s", "p99<50ms",
            "p99<50ms: latency is measured for QoS 1 and 2 acknowledgements, and every device publishes at QoS 0"
        ),
        (
            "qos: 1\n    publish: max", "lateness.p99<5ms",
            "lateness.p99<5ms: lateness is measured against a schedule, and every device publishes at max"
        ),
        (
            "qos: 1\n    publish: 20/s", "ackTimeouts==0",
            "ackTimeouts==0: ackTimeouts counts QoS 1/2 messages not acknowledged within --ack-timeout (broker.ackTimeout), "
                + "and no QoS 1/2 device has one"
        ),
    ])
    func anAssertionNoRunCanJudgeExits2BeforeConnecting(group: String, assertion: String, reason: String) throws {
        let file = try RunFiles.scenario(
            "unjudged.yaml",
            """
            devices:
              - name: d
                topic: t
                \(group)
                payload: { fields: { seq: { counter: 0 } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, port: try Loopback.freePort(), ["--expect", assertion], statsInterval: nil, timeout: 20)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("--expect: " + reason), "\(result.stderr)")
        #expect(!result.stderr.contains("starting"), "\(result.stderr)")
    }

    @Test func junitReportParsesWithTheRightCounts() throws {
        let broker = try MosquittoBroker()
        let scenario = try scenario()
        let report = scenario + ".xml"
        let result = try DevsimRun(
            scenario, port: broker.port,
            [
                "--duration", "1s", "--report", report, "--report-format", "junit",
                "--expect", "failed==0", "--expect", "published>=1000000", "--expect", "reconnects>=1",
            ], timeout: 60)
        #expect(result.status == 4, "\(result.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: report))
        #expect(XMLParser(data: data).parse())
        let suite = try #require(try XMLDocument(data: data, options: []).rootElement())
        #expect(suite.name == "testsuite")
        #expect(suite.attribute(forName: "name")?.stringValue == "devsim")
        #expect(suite.attribute(forName: "tests")?.stringValue == "3")
        #expect(suite.attribute(forName: "failures")?.stringValue == "2")
        let cases = suite.elements(forName: "testcase")
        #expect(cases.map { $0.attribute(forName: "name")?.stringValue } == ["failed==0", "published>=1000000", "reconnects>=1"])
        #expect(cases.map { $0.elements(forName: "failure").count } == [0, 1, 1])
        #expect(
            cases[2].elements(forName: "failure").first?.attribute(forName: "message")?.stringValue == "0 (1 short)")
        let json = try #require(suite.elements(forName: "system-out").first?.stringValue)
        let figures = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect((figures["published"] as? Int ?? 0) > 0)

        // From the environment, and without assertions: one test case for the run itself.
        let plain = scenario + ".plain.xml"
        let again = try DevsimRun(
            scenario, port: broker.port, ["--duration", "1s", "--report", plain], environment: ["DEVSIM_REPORT_FORMAT": "junit"],
            timeout: 60)
        #expect(again.status == 0, "\(again.stderr)")
        let plainSuite = try #require(try XMLDocument(data: Data(contentsOf: URL(fileURLWithPath: plain)), options: []).rootElement())
        #expect(plainSuite.attribute(forName: "tests")?.stringValue == "1")
        #expect(plainSuite.attribute(forName: "failures")?.stringValue == "0")
        #expect(plainSuite.elements(forName: "testcase").first?.attribute(forName: "name")?.stringValue == "run meters")
    }

    @Test func aBadExpectationExits2BeforeAnyRun() throws {
        let scenario = try scenario()
        // Port 1: nothing listens; a run would wait for the connect timeout and exit 3.
        let start = TestClock.now()
        let result = try DevsimRun(scenario, port: 1, ["--expect", "rate>=99.5%", "--expect", "p99<50"], statsInterval: nil)
        #expect(result.status == 2)
        #expect(result.stderr.contains("--expect 'p99<50': p99 is a duration; give a unit, ms, s or us"), "\(result.stderr)")
        #expect(!result.stderr.contains("starting"))
        #expect(TestClock.now() - start < 10)
        let unknown = try DevsimProcess.runToCompletion(
            args: ["run", scenario, "--dry-run"], env: ["DEVSIM_EXPECT": "rat>=99%"], timeout: 30)
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("DEVSIM_EXPECT 'rat>=99%': unknown figure 'rat' (did you mean rate?)"), "\(unknown.stderr)")
    }

    @Test func dryRunsIgnoreExpectationsWithAWarning() throws {
        let scenario = try scenario()
        let result = try DevsimProcess.runToCompletion(
            args: ["run", scenario, "--dry-run", "--messages", "2", "--expect", "published>=1000000"], timeout: 30)
        #expect(result.status == 0)
        #expect(result.stdout.split(separator: "\n").count == 2)
        #expect(result.stderr.contains("dry run: --expect ignored"), "\(result.stderr)")
    }

    @Test func noConnectionStillExits3WhenAssertionsBreakToo() throws {
        let server = try ScriptedMQTTServer(script: .init(connackCode: 5))
        let scenario = try scenario()
        let report = scenario + ".xml"
        let result = try DevsimRun(
            scenario, port: server.port,
            ["--connect-timeout", "1s", "--expect", "rate>=99%", "--report", report, "--report-format", "junit"], statsInterval: nil)
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("expect rate>=99%: FAILED"), "\(result.stderr)")
        let suite = try #require(try XMLDocument(data: Data(contentsOf: URL(fileURLWithPath: report)), options: []).rootElement())
        #expect(suite.attribute(forName: "tests")?.stringValue == "2")
        #expect(suite.attribute(forName: "failures")?.stringValue == "2")
    }
}
