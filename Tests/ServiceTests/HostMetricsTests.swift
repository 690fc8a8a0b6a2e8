import Foundation
import Testing
@testable import Report
@testable import Service
@testable import Simulator

/// A cluster's brokers (`broker.hosts`) in `/metrics`, the HTML report and a merge of shards.
@Suite struct HostMetricsTests {
    private static func hosts() -> [HostFigures] {
        var first = HostFigures(host: "10.0.0.1:1883")
        (first.connectionsUp, first.connects, first.failoversTo, first.published, first.acknowledged) = (6, 6, 3, 90, 88)
        var second = HostFigures(host: "10.0.0.2:1883")
        (second.connects, second.connectionLosses, second.failoversFrom, second.published, second.failed) = (3, 3, 3, 10, 1)
        return [first, second]
    }

    private static func result(hosts: [HostFigures]) -> RunResult {
        var result = RunResult(
            totals: Totals(), connectionsUpAtEnd: 6, connections: 6, durationSeconds: 1, reason: .running, latency: Histogram(),
            lateness: Histogram(), groups: [(name: "meter", totals: Totals())], connectionErrors: [:], allConnectedSeconds: nil)
        result.hosts = hosts
        return result
    }

    @Test func eachHostIsLabelledByItsAddress() {
        let text = MetricsText.render(
            Fleet.Live(result: Self.result(hosts: Self.hosts()), stuckLoops: []), shard: nil, version: "v", startTime: 0)
        #expect(text.contains("# TYPE devsim_host_connections_up gauge\ndevsim_host_connections_up{host=\"10.0.0.1:1883\"} 6\n"))
        #expect(
            text.contains(
                "devsim_host_published_total{host=\"10.0.0.1:1883\"} 90\ndevsim_host_published_total{host=\"10.0.0.2:1883\"} 10\n"))
        #expect(text.contains("devsim_host_failovers_from_total{host=\"10.0.0.2:1883\"} 3\n"))
        #expect(text.contains("devsim_host_connection_losses_total{host=\"10.0.0.2:1883\"} 3\n"))
        #expect(text.contains("devsim_host_failed_total{host=\"10.0.0.2:1883\"} 1\n"))
        let none = MetricsText.render(Fleet.Live(result: Self.result(hosts: []), stuckLoops: []), shard: nil, version: "v", startTime: 0)
        #expect(!none.contains("devsim_host_"), "one broker has no host series")
    }

    @Test func theReportListsTheHostsAndShardsAddThemUp() throws {
        let report = RunReport(result: Self.result(hosts: Self.hosts()), scenarios: ["s"], seed: 1)
        let json = try JSONSerialization.jsonObject(with: try report.json()) as? [String: Any]
        let listed = try #require(json?["hosts"] as? [[String: Any]])
        #expect(listed.map { $0["host"] as? String } == ["10.0.0.1:1883", "10.0.0.2:1883"])
        #expect(
            listed[1]["failoversFrom"] as? Int == 3 && listed[0]["failoversTo"] as? Int == 3 && listed[0]["connectionLosses"] as? Int == 0)
        let none = try JSONSerialization.jsonObject(with: try RunReport(result: Self.result(hosts: []), scenarios: ["s"], seed: 1).json())
        #expect((none as? [String: Any])?["hosts"] == nil, "absent for one broker")
        #expect(
            HTMLReport.page(report).contains(
                "<tr data-host=\"10.0.0.2:1883\"><td>10.0.0.2:1883</td><td>0</td><td>3</td><td>3</td><td>3</td>"))
        #expect(
            Self.hosts()[1].logLine
                == "host 10.0.0.2:1883: 0 up, 3 connects, 3 lost, failovers 3 from and 0 to, published 10, acknowledged 0, failed 1")
        let merged = HostFigures.merge(Self.hosts() + Self.hosts().reversed())
        #expect(merged.map(\.host) == ["10.0.0.1:1883", "10.0.0.2:1883"])
        #expect(merged.map(\.published) == [180, 20] && merged.map(\.failoversFrom) == [0, 6])
    }
}
