import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 6, fault 3: a network that goes silent. devsim and its broker run in a network namespace
/// of the test's own, where iptables drops their packets without a reset, as a dead link or a
/// firewall does: nothing on the socket says that the broker is gone.
@Suite(.serialized, .tags(.integration, .root), .notUnitOnly) struct SilentNetworkFaultTests {
    private let keepalive = 5.0

    private func scenario() throws -> String {
        try ScenarioText(
            broker: ["keepalive: \(Int(keepalive))s", "reconnect: { initial: 200ms, max: 1s }"], count: 2, topic: "silent/{index}",
            publish: "10/s", qos: 1, fields: "n: { counter: 0 }"
        ).file("silent.yaml")
    }

    /// Both directions of the broker's port, dropped.
    private func silence(_ namespace: NetworkNamespace, port: UInt16) throws {
        try namespace.run("iptables", "-I", "INPUT", "-p", "tcp", "--dport", String(port), "-j", "DROP")
        try namespace.run("iptables", "-I", "INPUT", "-p", "tcp", "--sport", String(port), "-j", "DROP")
    }

    private func lines(_ text: String, endingWith suffix: String) -> Int {
        text.split(separator: "\n").filter { $0.hasSuffix(suffix) }.count
    }

    @Test func silentBrokerIsDetectedWithinOneAndAHalfKeepalivesAndDevicesResumeWhenItIsBack() throws {
        let namespace = try NetworkNamespace()
        let broker = try MosquittoBroker(namespace: namespace)
        let file = try scenario()
        defer { RunFiles.removeFolder(of: file) }
        let reportPath = file + ".json"
        let devsim = try DevsimRun.start(file, port: broker.port, ["--connack-timeout", "1500ms"], report: true, namespace: namespace)
        #expect(TestClock.wait(timeout: 10, interval: 0.02) { lines(devsim.stderr, endingWith: " connected") == 2 }, "\(devsim.stderr)")
        TestClock.sleep(1)

        try silence(namespace, port: broker.port)
        let silentSince = TestClock.now()
        let detected = devsim.waitForOutput(containing: "connection lost: nothing from the broker", inStderr: true, timeout: 20)
        let detectedAfter = TestClock.now() - silentSince
        #expect(detected, "\(devsim.stderr)")
        // Acknowledgements arrived until the rule went in, so the silence is measured from then.
        // The half second is for this test's polling on a busy machine, not for devsim.
        #expect(detectedAfter <= 1.5 * keepalive + 0.5, "detected after \(detectedAfter) s")
        #expect(detectedAfter >= keepalive, "not before the broker could have answered a PINGREQ: \(detectedAfter) s")
        #expect(
            TestClock.wait(timeout: 5, interval: 0.02) {
                devsim.stderr.components(separatedBy: "connection lost: nothing from the broker").count - 1 == 2
            }, "both connections detect it\n\(devsim.stderr)")
        // The attempts made while the rule holds reach no one: devsim's CONNACK timer ends each.
        #expect(devsim.waitForOutput(containing: "no CONNACK within 1.5s", inStderr: true, timeout: 10), "\(devsim.stderr)")

        try namespace.run("iptables", "-F", "INPUT")
        #expect(
            TestClock.wait(timeout: 10, interval: 0.02) { lines(devsim.stderr, endingWith: " reconnected") == 2 },
            "both connections are back once the rule is lifted\n\(devsim.stderr)")
        // Devices resume: messages reach a subscriber after the reconnection.
        let received = try DevsimProcess.runToCompletion(
            executable: "mosquitto_sub", args: ["-h", "127.0.0.1", "-p", String(broker.port), "-t", "silent/#", "-C", "5", "-W", "10"],
            namespace: namespace, timeout: 20)
        #expect(received.status == 0, "\(received.stderr)")
        #expect(received.stdout.split(separator: "\n").count == 5)

        devsim.sendSignal(SIGTERM)
        #expect(devsim.waitUntilExit(timeout: 15) == 0, "\(devsim.stderr)")
        let figures = try RunFiles.report(reportPath)
        let published = try #require(figures["published"] as? Int)
        let skipped = try #require(figures["skippedOffline"] as? Int)
        #expect(RunFiles.accountsForEveryTick(figures), "every tick in exactly one place: \(figures)")
        #expect(skipped > 0, "the devices paused while the broker was unreachable")
        #expect(published == (figures["acknowledged"] as? Int ?? -1) + (figures["inFlight"] as? Int ?? -1))
        #expect(figures["reconnects"] as? Int == 2)
        let errors = try #require(figures["connectionErrors"] as? [String: Int])
        #expect(errors.first { $0.key.hasPrefix("connection lost: nothing from the broker for 7.5s") }?.value == 2, "\(errors)")
    }

    @Test func connectWhoseSynIsDroppedTimesOutOnDevsimsTimer() throws {
        let namespace = try NetworkNamespace()
        let broker = try MosquittoBroker(namespace: namespace)
        try silence(namespace, port: broker.port)
        let file = try scenario()
        defer { RunFiles.removeFolder(of: file) }
        let reportPath = file + ".json"
        let started = TestClock.now()
        let devsim = try DevsimRun.start(file, port: broker.port, ["--connack-timeout", "1500ms"], report: true, namespace: namespace)
        // The kernel would retry the SYN for about two minutes; devsim gives up after 1.5 s.
        #expect(devsim.waitForOutput(containing: "no CONNACK within 1.5s", inStderr: true, timeout: 10), "\(devsim.stderr)")
        let gaveUpAfter = TestClock.now() - started
        #expect(gaveUpAfter < 1.5 + 1.5, "gave up after \(gaveUpAfter) s")
        TestClock.sleep(2)
        try namespace.run("iptables", "-F", "INPUT")
        #expect(
            TestClock.wait(timeout: 10, interval: 0.02) { lines(devsim.stderr, endingWith: " connected") == 2 },
            "a later attempt gets through once the rule is lifted\n\(devsim.stderr)")
        TestClock.sleep(0.5)
        devsim.sendSignal(SIGTERM)
        #expect(devsim.waitUntilExit(timeout: 15) == 0, "\(devsim.stderr)")
        let figures = try RunFiles.report(reportPath)
        #expect((figures["published"] as? Int ?? 0) > 0)
        let errors = try #require(figures["connectionErrors"] as? [String: Int])
        #expect((errors["no CONNACK within 1.5s"] ?? 0) >= 4, "each device's attempts time out and are retried: \(errors)")
    }
}
