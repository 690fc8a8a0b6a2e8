import Foundation
import Testing
import TestSupport

/// Review of issue 29, part C: a host's `connectionLosses` are its connections lost, not those
/// dropped on purpose, as the run's `connectionErrors` count them.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct HostLossesRunTests {
    /// A stage's `disconnect: all` drops every connection on purpose: no host lost one.
    @Test func aStageThatDropsEveryConnectionIsNoHostsLoss() throws {
        let first = try MosquittoBroker()
        let second = try MosquittoBroker()
        let file = try RunFiles.scenario(
            "drop-all.yaml",
            """
            name: drop-all
            broker:
              hosts: ["127.0.0.1:\(first.port)", "127.0.0.1:\(second.port)"]
              spread: roundRobin
              reconnect: { initial: 100ms, max: 500ms }
            stages:
              - { duration: 1s, rate: 5/s }
              - { duration: 2s, disconnect: all }
            devices:
              - name: meter
                count: 4
                topic: "m/{id}"
                publish: 5/s
                payload: { fields: { seq: { counter: 0 } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, report: true, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try RunFiles.report(file + ".json")
        let dropped = ((report["stages"] as? [[String: Any]])?.last?["recovery"] as? [String: Any])?["dropped"] as? Int
        #expect(dropped == 4, "\(report["stages"] ?? "no stages")")
        #expect((report["connectionErrors"] as? [String: Int] ?? [:]).isEmpty, "\(report["connectionErrors"] ?? "")")
        let hosts = report["hosts"] as? [[String: Any]] ?? []
        #expect(hosts.count == 2 && hosts.allSatisfy { $0["connectionLosses"] as? Int == 0 }, "\(hosts)")
    }
}
