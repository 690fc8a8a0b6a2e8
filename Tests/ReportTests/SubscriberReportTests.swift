import Foundation
@testable import Report
import Testing

/// The subscriber groups' part of the report: its JSON, `report merge` of shards' parts, the
/// HTML report's table and the run log's line.
@Suite struct SubscriberReportTests {
    static func figures(_ name: String, shared: Bool = false, received: Int, latencies: [UInt64]) -> SubscriberFigures {
        var figures = SubscriberFigures(name: name, shared: shared)
        figures.connections = 3
        figures.subscribed = 3
        figures.received = received
        figures.connectionsReceiving = 2
        figures.ratePerSecond = Double(received) / 10
        figures.duplicates = 1
        if !shared { figures.outOfOrder = 2 }
        figures.gaps = 3
        var histogram = Histogram()
        for value in latencies { histogram.record(value) }
        figures.latency = histogram.isEmpty ? nil : Percentiles(histogram)
        figures.histogram = HistogramData(histogram)
        return figures
    }

    static func report(shard: Int, subscribers: [SubscriberFigures]) throws -> RunReport {
        var result = RunResult(
            totals: Totals(), connectionsUpAtEnd: 1, connections: 1, durationSeconds: 10, reason: .duration, latency: Histogram(),
            lateness: Histogram(), groups: [], connectionErrors: [:], allConnectedSeconds: 0)
        result.subscribers = subscribers
        var report = RunReport(result: result, scenarios: ["s"], seed: 1)
        report.shard = Shard(index: shard, count: 2)
        return try JSONDecoder().decode(RunReport.self, from: try report.json())
    }

    @Test func theReportHasASubscribersSectionOnlyWithSubscribers() throws {
        let with = try Self.report(shard: 0, subscribers: [Self.figures("dash", received: 40, latencies: [1_000_000])])
        let json = try #require(try JSONSerialization.jsonObject(with: try with.json()) as? [String: Any])
        let groups = try #require(json["subscribers"] as? [[String: Any]])
        #expect(
            Set(groups[0].keys).isSuperset(of: [
                "name", "shared", "connections", "subscribed", "received", "connectionsReceiving", "ratePerSecond", "latency", "duplicates",
                "outOfOrder", "gaps", "histogram",
            ]))
        #expect((groups[0]["latency"] as? [String: Any])?["p99"] as? Double == 1)
        let without = try JSONSerialization.jsonObject(with: try Self.report(shard: 0, subscribers: []).json()) as? [String: Any]
        #expect(without?["subscribers"] == nil)
    }

    @Test func mergeAddsGroupsOfOneNameUpAndTheirLatencyFromTheHistograms() throws {
        let first = try Self.report(
            shard: 0,
            subscribers: [
                Self.figures("dash", received: 40, latencies: [1_000_000, 2_000_000]),
                Self.figures("workers", shared: true, received: 7, latencies: []),
            ])
        let second = try Self.report(shard: 1, subscribers: [Self.figures("dash", received: 60, latencies: [9_000_000])])
        let merged = try ReportMerge.merge([.init(name: "a", report: first), .init(name: "b", report: second)]).report
        let groups = try #require(merged.subscribers)
        #expect(groups.map(\.name) == ["dash", "workers"])
        let dash = groups[0]
        #expect(dash.received == 100 && dash.connections == 6 && dash.subscribed == 6 && dash.connectionsReceiving == 4)
        #expect(dash.duplicates == 2 && dash.outOfOrder == 4 && dash.gaps == 6 && dash.ratePerSecond == 10)
        #expect(dash.latency?.count == 3 && dash.latency?.max == 9 && dash.histogram?.count == 3)
        #expect(groups[1] == Self.figures("workers", shared: true, received: 7, latencies: []), "alone in one shard: as it was")
    }

    @Test func theHTMLReportHasTheirTableAndTheLogTheirLine() throws {
        let report = try Self.report(shard: 0, subscribers: [Self.figures("<dash>", shared: true, received: 40, latencies: [1_000_000])])
        let page = HTMLReport.page(report)
        #expect(page.contains("<table id=\"subscribers\">") && page.contains("data-subscriber-group=\"&lt;dash&gt;\""))
        #expect(page.contains("<td>&lt;dash&gt; (shared)</td><td>3</td><td>3</td><td>40</td><td>4</td>"), "\(page)")
        #expect(!HTMLReport.page(try Self.report(shard: 0, subscribers: [])).contains("id=\"subscribers\""))
        #expect(
            Self.figures("dash", received: 40, latencies: [1_000_000]).logLine
                == "subscriber group 'dash': 3/3 subscribed, received 40 (4.0 msg/s), latency p50 1.0 ms, p99 1.0 ms, "
                + "duplicates 1, out of order 2, gaps 3")
    }

    /// A shared group's members read on one loop in the order it finds them ready, not the
    /// broker's: its `outOfOrder` is no figure, absent from the JSON, `—` in the HTML table,
    /// left out of the log line, and of a merge.
    @Test func aSharedGroupHasNoOutOfOrder() throws {
        let workers = Self.figures("workers", shared: true, received: 7, latencies: [])
        #expect(workers.outOfOrder == nil && SubscriberFigures(name: "dash", shared: false).outOfOrder == 0)
        let report = try Self.report(shard: 0, subscribers: [workers, Self.figures("dash", received: 40, latencies: [])])
        let json = try #require(try JSONSerialization.jsonObject(with: try report.json()) as? [String: Any])
        let groups = try #require(json["subscribers"] as? [[String: Any]])
        #expect(groups[0]["outOfOrder"] == nil && groups[1]["outOfOrder"] as? Int == 2, "\(groups)")
        #expect(report.subscribers?.first?.outOfOrder == nil, "read back absent")
        let page = HTMLReport.page(report)
        #expect(
            page.contains(
                "<td>workers (shared)</td><td>3</td><td>3</td><td>7</td><td>0.7</td><td></td><td></td><td>1</td><td>—</td><td>3</td>"),
            "\(page)")
        #expect(workers.logLine.hasSuffix("duplicates 1, gaps 3"), "\(workers.logLine)")
        let merged = try ReportMerge.merge([
            .init(name: "a", report: report), .init(name: "b", report: try Self.report(shard: 1, subscribers: [workers])),
        ])
        #expect(merged.report.subscribers?.first?.outOfOrder == nil && merged.report.subscribers?.first?.received == 14)
    }
}
