import Foundation
import Testing
import TestSupport

/// Issue 10, item 6: `--verify` must not blame the broker for its own subscriber's backlog, and
/// says what it found in the run's last lines.
@Suite(.tags(.integration), .notUnitOnly) struct VerifyCommandTests {
    private func scenario(publish: String, count: Int = 2) throws -> String {
        try ScenarioText(group: "blast", count: count, topic: "verify/{index}", publish: publish, qos: 1).file("verify.yaml")
    }

    /// A broker that keeps next to nothing in flight or queued for a subscriber (300 bytes, 2 KB)
    /// drops most of what the fleet publishes at full speed before the subscriber can take it.
    @Test func aSubscriberThatFallsBehindIsNamedWithBothRates() throws {
        let broker = try MosquittoBroker(extraConfig: ["max_inflight_bytes 300", "max_queued_bytes 2000"])
        let file = try scenario(publish: "max")
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, port: broker.port, ["--duration", "3s", "--verify"], report: true)
        #expect(result.status == 0, "\(result.stderr)")
        let verify = try #require(try RunFiles.report(file + ".json")["verify"] as? [String: Any])
        let lost = verify["lost"] as? Int ?? 0, missing = verify["missingWhileConnected"] as? Int ?? 0
        #expect(lost > 0 && missing == lost, "the broker's bounds made it drop, every connection up: \(verify)")
        #expect(verify["fellBehind"] as? Bool == true, "\(verify)")
        let published = verify["acceptedPerSecond"] as? Double ?? 0, received = verify["receivedPerSecond"] as? Double ?? 0
        #expect(published > received && received > 0, "\(verify)")
        let last = result.stderr.split(separator: "\n").last ?? ""
        #expect(
            last.contains("verify: the subscribers fell behind") && last.contains("\(Int(received)) msg/s")
                && last.contains("\(Int(published)) msg/s") && last.contains("\(missing) of the \(lost) lost"), "\(result.stderr)")
        let finished = result.stderr.split(separator: "\n").first { $0.contains("finished:") } ?? ""
        #expect(finished.contains("verify: lost \(lost), received \(verify["received"] as? Int ?? -1)"), "\(finished)")
    }

    /// The subscriber tries MQTT 5 for its Receive Maximum; a broker of MQTT 3 only refuses it,
    /// and the subscriber goes on with the fleet's MQTT 3.1.1.
    @Test func aBrokerWithoutMQTT5GetsTheSubscriberInTheFleetsProtocol() throws {
        let server = try ScriptedMQTTServer(script: .init(refusesMQTT5: true))
        let file = try scenario(publish: "5/s", count: 1)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, port: server.port, ["--duration", "2s", "--verify"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("verify: the broker refused MQTT 5"), "\(result.stderr)")
        let levels = server.connections.compactMap { $0.connect.map { ($0.clientID.hasPrefix("devsim-verify"), $0.protocolLevel) } }
        #expect(levels.filter { $0.0 }.map(\.1) == [5, 4], "one MQTT 5 attempt, then MQTT 3.1.1: \(levels)")
        let subscribed = server.connections.filter {
            $0.connect?.protocolLevel == 4 && $0.connect?.clientID.hasPrefix("devsim-verify") == true
        }
        #expect(subscribed.first?.subscriptions == ["verify/+"], "the fallback connection subscribed")
    }
}
