import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 16, item 5: `--ack-timeout` / `broker.ackTimeout`, a request timeout for QoS 1/2
/// messages. A real mosquitto is frozen (`SIGSTOP`) longer than the timeout: the kernel still
/// takes the PUBLISH packets, and nothing acknowledges them until it runs again.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct AckTimeoutTests {
    private func scenario(_ broker: String...) throws -> String {
        try ScenarioText(broker: broker, count: 2, topic: "ack/{index}", publish: "20/s", qos: 1).file("ack-timeout.yaml")
    }

    /// Runs `file` for 4 s, freezing the broker for 1.5 s once both devices are connected.
    private func runThroughAFreeze(_ file: String, _ extra: [String] = []) throws -> (status: Int32?, stderr: String, report: [String: Any])
    {
        let broker = try MosquittoBroker()
        defer { broker.resume() }
        let devsim = try DevsimRun.start(file, port: broker.port, ["--duration", "4s"] + extra, report: true)
        let connected = TestClock.wait(timeout: 10, interval: 0.01) {
            devsim.stderr.components(separatedBy: " connected").count - 1 >= 2
        }
        #expect(connected, "\(devsim.stderr)")
        broker.pause()
        TestClock.sleep(1.5)
        broker.resume()
        let status = devsim.waitUntilExit(timeout: 30)
        return (status, devsim.stderr, try RunFiles.report(file + ".json"))
    }

    @Test func messagesUnacknowledgedForLongerAreCountedAndLoggedOnce() throws {
        let file = try scenario("ackTimeout: 500ms")
        defer { RunFiles.removeFolder(of: file) }
        let (status, stderr, report) = try runThroughAFreeze(file)
        let figure = { (name: String) in report[name] as? Int ?? -1 }
        #expect(status == 0, "\(stderr)")
        #expect(figure("ackTimeouts") > 0 && figure("ackTimeouts") <= figure("published"), "\(report)")
        #expect(figure("reconnects") == 0, "counting alone keeps the connection: \(report)")
        #expect(figure("acknowledged") == figure("published"), "the acknowledgements came after the freeze: \(report)")
        #expect(RunFiles.accountsForEveryTick(report), "\(report)")
        let lines = stderr.components(separatedBy: "\n").filter { $0.contains("waited longer than the ack timeout") }
        #expect(!lines.isEmpty && lines.count <= 3, "one line a second at most, however many time out:\n\(stderr)")
    }

    @Test func reconnectDropsTheConnectionSoThatLibmosquittoResends() throws {
        let file = try scenario("ackTimeout: 500ms", "onAckTimeout: reconnect", "reconnect: { initial: 200ms, max: 1s }")
        defer { RunFiles.removeFolder(of: file) }
        let (status, stderr, report) = try runThroughAFreeze(file)
        let figure = { (name: String) in report[name] as? Int ?? -1 }
        #expect(status == 0, "\(stderr)")
        #expect(figure("ackTimeouts") > 0, "\(report)")
        #expect(figure("reconnects") >= 2, "both connections were made again: \(report)")
        let errors = report["connectionErrors"] as? [String: Int] ?? [:]
        #expect(errors["connection lost: no acknowledgement within 0.5s (onAckTimeout: reconnect)", default: 0] >= 2, "\(errors)")
        #expect(
            figure("acknowledged") == figure("published") && figure("inFlight") == 0,
            "what was in flight was resent on the new connections and acknowledged: \(report)")
        #expect(RunFiles.accountsForEveryTick(report), "\(report)")
    }

    @Test func withoutATimeoutAFreezeCountsNone() throws {
        let file = try scenario("keepalive: 60s")
        defer { RunFiles.removeFolder(of: file) }
        let (status, stderr, report) = try runThroughAFreeze(file)
        #expect(status == 0, "\(stderr)")
        #expect(report["ackTimeouts"] as? Int == 0, "\(report)")
        #expect(!stderr.contains("waited longer than the ack timeout"), "\(stderr)")
    }

    @Test func theFlagOverridesTheScenarioAndExpectJudgesIt() throws {
        let file = try scenario("ackTimeout: 1h")
        defer { RunFiles.removeFolder(of: file) }
        let (status, stderr, report) = try runThroughAFreeze(file, ["--ack-timeout", "500ms", "--expect", "ackTimeouts==0"])
        #expect(status == 4, "\(stderr)")
        #expect((report["ackTimeouts"] as? Int ?? 0) > 0, "\(report)")
        #expect(stderr.contains("expect ackTimeouts==0: FAILED"), "\(stderr)")
    }
}
