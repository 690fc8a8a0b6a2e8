import Foundation
import Testing
import TestSupport

/// Issue 24, item 6: an MQTT 5 broker that refuses messages (PUBACK with a reason code of 0x80
/// or more) has them counted as refused, by reason, never as acknowledged.
@Suite(.tags(.integration), .notUnitOnly) struct RefusalTests {
    /// mosquitto 2.0.11, with an ACL that lets each device write only its own topic, and three
    /// devices of which two write elsewhere: it answers their QoS 1 messages with PUBACK 0x87.
    /// Issue 38, item 11: each group's refusals by reason, in the JSON and the HTML report.
    @Test func anACLsRefusalsAreCountedApartByGroupAndReasonAndFailAcked() throws {
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
        let result = try DevsimRun(
            file, port: broker.port, ["--duration", "2s", "--expect", "acked>=99.9%", "--expect", "refused==0"], report: true)
        #expect(result.status == 4, "the refusals break both expectations: \(result.stderr)")
        let report = try RunFiles.report(file + ".json")
        let published = report["published"] as? Int ?? 0
        let acknowledged = report["acknowledged"] as? Int ?? 0, refused = report["refused"] as? Int ?? 0
        #expect(published > 0 && acknowledged + refused + (report["inFlight"] as? Int ?? -1) == published, "\(report)")
        let groups = try #require(report["groups"] as? [[String: Any]])
        #expect(groups.first { $0["name"] as? String == "sensor" }?["refused"] as? Int == 0)
        let intruders = try #require(groups.first { $0["name"] as? String == "intruder" })
        #expect(intruders["acknowledged"] as? Int == 0 && intruders["refused"] as? Int == refused && refused > 0, "\(intruders)")
        let theirs = try #require(intruders["refusals"] as? [[String: Any]], "\(intruders)")
        #expect(theirs.count == 1 && theirs[0]["code"] as? Int == 0x87 && theirs[0]["count"] as? Int == refused, "\(theirs)")
        #expect(groups.first { $0["name"] as? String == "sensor" }?["refusals"] == nil, "nothing refused, no list")
        let refusals = try #require(report["refusals"] as? [[String: Any]])
        #expect(refusals.count == 1 && refusals[0]["code"] as? Int == 0x87 && refusals[0]["count"] as? Int == refused, "\(refusals)")
        #expect(refusals[0]["reason"] as? String == "Not authorized")
        let lines = result.stderr.split(separator: "\n").filter { $0.contains("publish refused by the broker") }
        #expect(lines.count == 1, "once per reason: \(result.stderr)")
        #expect(lines.first?.contains("Not authorized (0x87), first on topic 'denied/") == true, "\(lines)")
        let verdicts = try #require(report["expectations"] as? [[String: Any]])
        #expect(verdicts.map { $0["passed"] as? Bool } == [false, false], "\(verdicts)")

        let html = try DevsimProcess.runToCompletion(args: ["report", "html", file + ".json", "--output", file + ".html"], timeout: 30)
        #expect(html.status == 0, "\(html.stderr)")
        let page = try String(contentsOfFile: file + ".html", encoding: .utf8)
        #expect(page.contains("<th>acknowledged</th><th>refused</th>"), "the groups' table has a refused column")
        let row = try #require(page.firstRange(of: "<tr data-group=\"intruder\">").map { page[$0.upperBound...].prefix { $0 != "\n" } })
        let cells = row.prefix(upTo: row.firstRange(of: "</tr>")?.lowerBound ?? row.endIndex).matches(of: /<td>([^<]*)<\/td>/)
            .map { String($0.output.1) }
        #expect(
            Array(cells.prefix(5)) == [
                "intruder", "\(intruders["scheduled"] ?? "")", "\(intruders["published"] ?? "")", "0", "\(refused)",
            ], "\(row)")
        #expect(
            page.contains(
                "<h2>Refused by the broker</h2>\n<table id=\"refusals\"><thead><tr><th>group</th><th>code</th><th>reason</th><th>refused</th>"
                    + "</tr></thead><tbody><tr data-group=\"intruder\" data-code=\"0x87\"><td>intruder</td><td>0x87</td>"
                    + "<td>Not authorized</td><td>\(refused)</td></tr></tbody></table>"), "\(page)")
        #expect(page.contains("<div class=\"figure\" data-figure=\"refused\">refused by the broker<b>\(refused)</b></div>"))
    }
}
