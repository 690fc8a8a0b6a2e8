import Foundation
import Report
import Scenario
import Simulator
import Testing
import TestSupport

/// Connection churn against a real mosquitto: each connection comes and goes as its group's
/// `lifecycle` says, leaving cleanly, and its ticks while away count as `paused`.
@Suite(.tags(.integration), .notUnitOnly) struct LifecycleTests {
    private static let scenario = """
        name: churn
        devices:
          - name: phone
            count: 3
            topic: "churn/{id}"
            publish: 20/s
            qos: 1
            lifecycle: { online: 1s, offline: 500ms }
            availability: { topic: "churn/{id}/status" }
            payload: { fields: { n: { counter: 0 } } }
        """

    /// How often the broker saw client `id` connect, and leave cleanly.
    private static func count(_ log: String, _ text: String) -> Int { log.components(separatedBy: text).count - 1 }

    @Test func connectionsComeAndGoAsTheLifecycleSaysAndAwayTicksArePaused() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario("churn.yaml", Self.scenario)
        defer { RunFiles.removeFolder(of: file) }
        // Up 1 s, away 0.5 s: connects at about 0, 1.5 and 3 s, leaves at 1 and 2.5 s, and the
        // end at 3.6 s, while up.
        let result = try DevsimRun(file, port: broker.port, ["--duration", "3600ms", "--seed", "3"], report: true, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let log = broker.log
        for id in ["phone-1", "phone-2", "phone-3"] {
            #expect(Self.count(log, " as \(id) (") == 3, "\(id) connected three times\n\(log)")
            #expect(Self.count(log, "Client \(id) disconnected.") == 3, "\(id) left cleanly each time, the end too\n\(log)")
            #expect(
                !log.contains("Client \(id) closed its connection") && !log.contains("Client \(id) has exceeded timeout"),
                "\(id) was never lost\n\(log)")
        }
        let report = try RunFiles.report(file + ".json")
        #expect(RunFiles.accountsForEveryTick(report), "\(report)")
        // Away 2 × 0.5 s each, at 20/s: about 20 ticks a device, paused rather than lost.
        let paused = report["paused"] as? Int ?? 0
        #expect((30...90).contains(paused), "paused \(paused)")
        #expect(report["skippedOffline"] as? Int == 0 && report["reconnects"] as? Int == 0, "\(report)")
        #expect(report["connectionsUp"] as? Int == 3)
    }

    /// A group's resume wakes connections paused by request, not those away by their
    /// lifecycle, whose offline stay it would cut short.
    @Test func aResumeDoesNotCutAnOfflineStayShort() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario(
            "away.yaml",
            """
            devices:
              - name: p
                topic: "away/p"
                publish: 10/s
                lifecycle: { online: 1s, offline: 3s }
                payload: { fields: { n: { counter: 0 } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port, ["--duration", "3s", "--http", "0"])
        let port = try #require(ServiceTests.servedPort(devsim), "\(devsim.stderr)")
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { broker.log.contains("Client p-1 disconnected.") }, "\(broker.log)")
        let resumed = try HTTPGet.request(port: port, path: "/api/groups/p/resume", method: "POST")
        #expect(resumed.status != 500, "\(resumed.body)")
        #expect(devsim.waitUntilExit(timeout: 20) == 0, "\(devsim.stderr)")
        // Away from 1 s to 4 s, past the run's end at 3 s: one connect only.
        #expect(Self.count(broker.log, " as p-1 (") == 1, "\(broker.log)")
    }

    @Test func theStaysFollowTheSeedAndTheClientID() throws {
        let yaml = """
            devices:
              - name: p
                count: 50
                topic: "p/{id}"
                publish: 1/s
                lifecycle: { online: 10m, offline: 30s, jitter: 20% }
                payload: { fields: { n: { counter: 0 } } }
            """
        let scenario = try ScenarioLoader.load(text: yaml, file: "p.yaml", environment: [:])
        let lifecycle = try #require(scenario.groups[0].lifecycle)
        #expect(lifecycle == Lifecycle(online: 600, offline: 30, jitter: 0.2))
        #expect(lifecycle.stay(600, unit: 0) == 480 && lifecycle.stay(600, unit: 0.5) == 600)
        let seeds = { (seed: UInt64) in
            FleetPlan(scenarios: [scenario], settings: RunSettings(seed: seed)).connections.map { $0.lifecycle?.seed ?? 0 }
        }
        #expect(seeds(4) == seeds(4) && seeds(4) != seeds(5))
        #expect(Set(seeds(4)).count == 50, "each connection draws its own stays")
    }

    @Test(arguments: [
        ("lifecycle: { online: 10m }", "missing 'offline' in 'lifecycle'"),
        ("lifecycle: { online: 10m, offline: 0s }", "offline"),
        (
            "lifecycle: { online: 10m, offline: 30s, jitter: 150% }",
            "expected a share under 100% such as 20% for 'jitter' of 'lifecycle', found"
        ),
        ("lifecycle: { online: 10m, offline: 30s, jitter: 0.2 }", "expected a share under 100% such as 20%"),
        ("lifecycle: { online: 10m, offline: 30s, every: 1h }", "unknown key 'every'"),
    ])
    func badLifecyclesAreRefusedWhereTheyAreWritten(line: String, message: String) {
        let yaml = "devices:\n  - name: p\n    topic: t\n    publish: 1/s\n    \(line)\n    payload: { fields: { n: { counter: 0 } } }\n"
        #expect {
            try ScenarioLoader.load(text: yaml, file: "l.yaml", environment: [:])
        } throws: { error in
            "\(error)".contains("l.yaml:5:") && "\(error)".contains(message)
        }
    }
}
