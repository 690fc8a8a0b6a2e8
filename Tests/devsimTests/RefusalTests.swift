import Foundation
import Testing
import TestSupport

/// Issue 24, item 6: an MQTT 5 broker that refuses messages (PUBACK with a reason code of 0x80
/// or more) has them counted as refused, by reason, never as acknowledged.
@Suite(.tags(.integration), .notUnitOnly) struct RefusalTests {
    /// mosquitto 2.0.11, with an ACL that lets each device write only its own topic, and three
    /// devices of which two write elsewhere: it answers their QoS 1 messages with PUBACK 0x87.
    @Test func anACLsRefusalsAreCountedApartByReasonAndFailAcked() throws {
        let folder = try RunFiles.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let acl = folder.appendingPathComponent("acl").path
        try "topic readwrite allowed/#\n".write(toFile: acl, atomically: true, encoding: .utf8)
        let broker = try MosquittoBroker(extraConfig: ["acl_file \(acl)"])
        let file = try RunFiles.scenario(
            "refused.yaml",
            """
            broker: { protocol: mqtt5 }
            defaults: { publish: 20/s, qos: 1, payload: { fields: { seq: { counter: 0 } } } }
            devices:
              - { name: sensor, count: 3, topic: "allowed/{index}" }
              - { name: intruder, count: 2, topic: "denied/{index}" }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimProcess.runToCompletion(
            args: [
                "run", file, "--host", "127.0.0.1", "--port", String(broker.port), "--duration", "2s", "--report", file + ".json",
                "--stats-interval", "0", "--expect", "acked>=99.9%", "--expect", "refused==0",
            ], timeout: 30)
        #expect(result.status == 4, "the refusals break both expectations: \(result.stderr)")
        let report = try RunFiles.report(file + ".json")
        let published = report["published"] as? Int ?? 0
        let acknowledged = report["acknowledged"] as? Int ?? 0, refused = report["refused"] as? Int ?? 0
        #expect(published > 0 && acknowledged + refused + (report["inFlight"] as? Int ?? -1) == published, "\(report)")
        let groups = try #require(report["groups"] as? [[String: Any]])
        #expect(groups.first { $0["name"] as? String == "sensor" }?["refused"] as? Int == 0)
        let intruders = try #require(groups.first { $0["name"] as? String == "intruder" })
        #expect(intruders["acknowledged"] as? Int == 0 && intruders["refused"] as? Int == refused && refused > 0, "\(intruders)")
        let refusals = try #require(report["refusals"] as? [[String: Any]])
        #expect(refusals.count == 1 && refusals[0]["code"] as? Int == 0x87 && refusals[0]["count"] as? Int == refused, "\(refusals)")
        #expect(refusals[0]["reason"] as? String == "Not authorized")
        let lines = result.stderr.split(separator: "\n").filter { $0.contains("publish refused by the broker") }
        #expect(lines.count == 1, "once per reason: \(result.stderr)")
        #expect(lines.first?.contains("Not authorized (0x87), first on topic 'denied/") == true, "\(lines)")
        let verdicts = try #require(report["expectations"] as? [[String: Any]])
        #expect(verdicts.map { $0["passed"] as? Bool } == [false, false], "\(verdicts)")
    }
}
