import Foundation
import Glibc
import Testing
import TestSupport

/// The built `devsim` binary, run as a user would.
@Suite(.tags(.integration), .notUnitOnly) struct ProcessTests {
    private let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func validateReportsEveryErrorWithLineAndColumnAndExits2() throws {
        let file = try RunFiles.scenario(
            "broken.yaml",
            """
            name: broken
            devices:
              - name: phone
                topic: t
                publish: ten per second
                qos: 3
                payload:
                  fields:
                    x: { accelerometer: x }
            """)
        let result = try DevsimProcess.runToCompletion(args: ["validate", file], timeout: 30)
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(file):5:14: "), "\(result.stderr)")
        #expect(result.stderr.contains("\(file):6:10: "), "\(result.stderr)")
    }

    @Test func validateCountsInWords() throws {
        let file = try RunFiles.scenario(
            "one.yaml",
            """
            devices:
              - name: phone
                topic: t
                publish: 1/s
                payload: { fields: { x: { accelerometer: x } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimProcess.runToCompletion(args: ["validate", file], timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(file): ok (1 device group, 1 device)\n")
    }

    @Test func everyShippedScenarioValidates() throws {
        let scenarios = try FileManager.default.contentsOfDirectory(atPath: repository.appendingPathComponent("scenarios").path)
            .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".json") }
            .map { repository.appendingPathComponent("scenarios").appendingPathComponent($0).path }
        try #require(!scenarios.isEmpty)
        // aws-iot-core.yaml's things each have a certificate, as `scripts/make-device-certs.sh`
        // makes them for a rehearsal.
        let certificates = try TestCertificates(host: "127.0.0.1")
        defer { certificates.remove() }
        try certificates.makeDeviceCertificates(ids: (1...10).map { "thing-\($0)" } + (1...5).map { "sensor-\($0)" })
        let env = ["AWS_IOT_CERTS": certificates.directory]
        let result = try DevsimProcess.runToCompletion(args: ["validate"] + scenarios, env: env, timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        for scenario in scenarios {
            let dry = try DevsimProcess.runToCompletion(args: ["run", scenario, "--dry-run", "--messages", "3"], env: env, timeout: 30)
            #expect(dry.status == 0, "\(scenario): \(dry.stderr)")
            // Three ticks, beside what is said at the CONNACK (states, a role's words, the will),
            // which are none.
            let ticks = dry.stdout.split(separator: "\n").count { line in
                ![",\"state\":true}", ",\"will\":true}", ",\"what\":"].contains { line.contains($0) }
            }
            #expect(ticks == 3, "\(scenario)")
        }
    }

    @Test func dryRunPrintsOneJSONObjectPerMessage() throws {
        let scenario = repository.appendingPathComponent("scenarios/milkcocoa-accelerometer.yaml").path
        let result = try DevsimProcess.runToCompletion(
            args: ["run", scenario, "--dry-run", "--messages", "5", "--seed", "7"],
            env: ["MILKCOCOA_APP_ID": "myapp"], timeout: 30)
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 5)
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["topic"] as? String == "myapp/Test/push")
            #expect(object["qos"] as? Int == 0)
            #expect(object["retain"] as? Bool == false)
            let payload = try #require(object["payload"] as? String)
            #expect(payload.wholeMatch(of: #/\{"params":\{"Accel_X":-?\d+\.\d{4},"Accel_Y":-?\d+\.\d{4}\}\}/#) != nil, "\(payload)")
        }
        let again = try DevsimProcess.runToCompletion(
            args: ["run", scenario, "--dry-run", "--messages", "5", "--seed", "7"],
            env: ["MILKCOCOA_APP_ID": "myapp"], timeout: 30)
        #expect(again.stdout == result.stdout, "a seed makes a run reproducible")
    }

    /// Issue 16, item 4: with `--log-format json` every line is one JSON object, and the figures
    /// of the starting and status lines are numbers in fields of their own, not words in `msg`.
    @Test func jsonLogsGiveTheStatusFiguresAsNumbers() throws {
        let broker = try MosquittoBroker()
        let scenario = try RunFiles.scenario("json-log.yaml", RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: scenario) }
        let result = try DevsimRun(
            scenario, port: broker.port, ["--duration", "2.5s", "--log-format", "json"], statsInterval: "1s", timeout: 20)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try result.stderr.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
        let starting = try #require(lines.first { $0["msg"] as? String == "starting" })
        #expect(starting["devices"] as? Int == 1 && starting["connections"] as? Int == 1, "\(starting)")
        let status = lines.filter { ($0["msg"] as? String)?.hasPrefix("connections ") == true }
        #expect(status.count >= 2, "\(result.stderr)")
        let last = try #require(status.last)
        #expect(last["connectionsUp"] as? Int == 1 && last["connections"] as? Int == 1, "\(last)")
        for key in ["scheduled", "published", "acknowledged", "inFlight", "late", "ackTimeouts", "errors"] {
            #expect(last[key] is Int, "\(key) is a number: \(last)")
        }
        #expect((last["published"] as? Int ?? 0) >= 10, "\(last)")
        #expect((last["publishedPerSecond"] as? Double ?? 0) > 5, "\(last)")
        #expect((last["intervalSeconds"] as? Double ?? 0) > 0.5, "\(last)")
    }

    @Test func sigtermDuringAQoS1RunDrainsAndReportsEverythingAcknowledged() throws {
        let broker = try MosquittoBroker()
        let scenario = try RunFiles.scenario(
            "qos1.yaml",
            """
            devices:
              - name: meter
                count: 5
                topic: "m/{index}"
                publish: 50/s
                qos: 1
                payload:
                  fields:
                    seq: { counter: 0 }
            """)
        let report = scenario + ".report.json"
        let devsim = try DevsimRun.start(scenario, port: broker.port, ["--report", report])
        #expect(devsim.waitForOutput(containing: "connected", inStderr: true, timeout: 10))
        TestClock.sleep(1)
        devsim.sendSignal(SIGTERM)
        #expect(devsim.waitUntilExit(timeout: 15) == 0, "\(devsim.stderr)")
        let figures = try RunFiles.report(report)
        let published = try #require(figures["published"] as? Int)
        #expect(published > 0)
        #expect(figures["acknowledged"] as? Int == published)
        #expect(figures["inFlight"] as? Int == 0)
        #expect(figures["outcome"] as? String == "stopped")
        let latency = try #require(figures["latency"] as? [String: Any])
        #expect(latency["unit"] as? String == "ms")
        #expect(Set(latency.keys).isSuperset(of: ["p50", "p90", "p99", "p999", "max"]))
        #expect((latency["count"] as? Int) == published)
        #expect((figures["lateness"] as? [String: Any])?["count"] as? Int == figures["scheduled"] as? Int)
        #expect(figures["connectionsUp"] as? Int == 5)
        let counted = ["published", "skippedOffline", "droppedBuffer", "buffered", "failed"].compactMap { figures[$0] as? Int }.reduce(0, +)
        #expect(figures["scheduled"] as? Int == counted)
    }

    @Test func refusedCredentialsExit3WithinTheConnectTimeout() throws {
        let server = try ScriptedMQTTServer(script: .init(connackCode: 4))
        let scenario = repository.appendingPathComponent("scenarios/milkcocoa-accelerometer.yaml").path
        let start = TestClock.now()
        let result = try DevsimRun(scenario, port: server.port, ["--connect-timeout", "2s"], statsInterval: nil)
        #expect(result.status == 3)
        #expect(TestClock.now() - start < 10)
        #expect(result.stderr.contains("bad user name or password"))
        #expect(server.connections.count <= 3, "retries are spaced by the backoff")
        #expect(
            result.stderr.components(separatedBy: "Connection Refused").count == 3,
            "logged once, then once more in the final error\n\(result.stderr)")
    }

    @Test func helpVersionAndBadUsage() throws {
        let help = try DevsimProcess.runToCompletion(args: ["--help"], timeout: 30)
        #expect(help.status == 0)
        #expect(help.stdout.contains("devsim run"))
        let runHelp = try DevsimProcess.runToCompletion(args: ["run", "--help"], timeout: 30)
        #expect(runHelp.status == 0)
        #expect(runHelp.stdout.contains("against the scenario's\nbroker, else localhost:1883. For example:"), "\(runHelp.stdout)")
        #expect(runHelp.stdout.contains("stop after N ticks over the whole fleet"))
        let version = try DevsimProcess.runToCompletion(args: ["--version"], timeout: 30)
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("devsim "))
        let bad = try DevsimProcess.runToCompletion(args: ["run", "--port", "http", "x.yaml"], timeout: 30)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--port"))
        #expect(bad.stderr.hasSuffix("Try 'devsim run --help'.\n"), "run's options are in run's help: \(bad.stderr)")
        let nothing = try DevsimProcess.runToCompletion(args: [], timeout: 30)
        #expect(nothing.status == 2, "no command is a usage error")
        #expect(nothing.stdout.isEmpty)
        #expect(nothing.stderr.contains("devsim run"), "the help, on standard error: \(nothing.stderr)")
        let missing = try DevsimProcess.runToCompletion(args: ["run", "/nonexistent/scenario.yaml", "--dry-run"], timeout: 30)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("/nonexistent/scenario.yaml"))
    }
}
