import Foundation
import Signals
@testable import Report
@testable import Simulator
import Testing

@Suite struct HistogramEncodingTests {
    private func histogram(_ values: [UInt64]) -> Histogram {
        var histogram = Histogram()
        for value in values { histogram.record(value) }
        return histogram
    }

    @Test func bucketsAndMinMaxAreTheWholeHistogram() throws {
        let original = histogram(HistogramTests.values(5_000, seed: 3) + [0, 1, 127, 128, UInt64.max])
        #expect(original.buckets.map(\.count).reduce(0, +) == original.count)
        #expect(original.buckets.map(\.index) == original.buckets.map(\.index).sorted())
        let rebuilt = try #require(Histogram(buckets: original.buckets, min: original.min, max: original.max))
        #expect(rebuilt == original)
        #expect(Histogram(buckets: [], min: 0, max: 0) == Histogram())
    }

    @Test func jsonRoundTrip() throws {
        for values in [[], [42], HistogramTests.values(10_000, seed: 11)] {
            let original = histogram(values)
            let data = try JSONEncoder().encode(HistogramData(original))
            let decoded = try JSONDecoder().decode(HistogramData.self, from: data)
            #expect(decoded == HistogramData(original))
            #expect(try decoded.histogram() == original)
            #expect(Percentiles(try decoded.histogram()) == Percentiles(original))
        }
        let text = String(decoding: try JSONEncoder().encode(HistogramData(histogram([5, 5, 300]))), as: UTF8.self)
        #expect(text.contains(#""buckets":{"#) && text.contains(#""5":2"#) && text.contains(#""unit":"ns""#))
    }

    @Test func dataThatMakesNoHistogramIsRefused() {
        var data = HistogramData(histogram([5, 900]))
        data.count = 3
        #expect(throws: HistogramDataError("count is 3 but the buckets hold 2")) { try data.histogram() }
        data = HistogramData(histogram([5]))
        data.buckets = ["99999": 1]
        #expect(throws: HistogramDataError.self) { try data.histogram() }
        data = HistogramData(histogram([5]))
        data.buckets = ["five": 1]
        #expect(throws: HistogramDataError("bucket 'five' is not a bucket index")) { try data.histogram() }
        data = HistogramData(histogram([5]))
        data.max = 1_000_000
        #expect(throws: HistogramDataError.self) { try data.histogram() }
        data = HistogramData(histogram([5]))
        data.significantBits = 5
        #expect(throws: HistogramDataError("significantBits is 5, this devsim uses 7")) { try data.histogram() }
        #expect(Histogram(buckets: [(3, 1), (3, 1)], min: 3, max: 3) == nil)
        #expect(Histogram(buckets: [(3, 0)], min: 3, max: 3) == nil)
    }
}

@Suite struct ReportMergeTests {
    private func totals(_ seed: Int) -> Totals {
        var t = Totals()
        t[.scheduled] = 100 + seed
        t[.published] = 90 + seed
        t[.acknowledged] = 80 + seed
        t[.inFlight] = 2
        t[.skippedOffline] = 3 + seed
        t[.droppedBuffer] = 1
        t[.buffered] = 4
        t[.failed] = 2
        t[.late] = 7 * seed
        t[.reconnects] = seed
        t[.refused] = 3
        t.refusals.add(0x87, 2)
        t.refusals.add(UInt8(0x90 + seed), 1)
        t.faults = FaultCounts(spike: seed, stuck: 1, dropout: 2 * seed, drift: 3)
        return t
    }

    private func sum(_ a: Totals, _ b: Totals) -> Totals {
        var t = Totals()
        for figure in Figure.allCases { t[figure] = a[figure] + b[figure] }
        t.faults = FaultCounts(
            spike: a.faults.spike + b.faults.spike, stuck: a.faults.stuck + b.faults.stuck,
            dropout: a.faults.dropout + b.faults.dropout, drift: a.faults.drift + b.faults.drift)
        t.refusals = a.refusals + b.refusals
        return t
    }

    private func histogram(_ n: Int, seed: UInt64) -> Histogram {
        var histogram = Histogram()
        for value in HistogramTests.values(n, seed: seed) { histogram.record(value) }
        return histogram
    }

    private func result(_ seed: Int, duration: Double, connected: Double?, errors: [String: Int]) -> RunResult {
        RunResult(
            totals: sum(totals(seed), totals(seed + 1)), connectionsUpAtEnd: 10 + seed, connections: 12 + seed,
            durationSeconds: duration, reason: .duration,
            latency: histogram(1_000 * (seed + 1), seed: UInt64(seed)),
            lateness: histogram(3_000, seed: UInt64(seed) + 100),
            groups: [("sensor", totals(seed)), ("meter", totals(seed + 1))],
            connectionErrors: errors, allConnectedSeconds: connected,
            verify: {
                var verify = VerifySummary(received: 50 + seed, lost: seed, duplicated: 1, outOfOrder: 2)
                verify.missedWhileAway = seed
                return verify
            }())
    }

    /// Two shards' reports through JSON, as `report merge` reads them.
    private func shardReports() throws -> (RunReport, RunReport, whole: RunReport) {
        let a = result(1, duration: 10, connected: 1.5, errors: ["refused": 2, "lost": 1])
        let b = result(4, duration: 9.5, connected: 2.25, errors: ["lost": 3])
        var first = RunReport(result: a, scenarios: ["plant"], seed: 9)
        first.shard = Shard(index: 0, count: 2)
        var second = RunReport(result: b, scenarios: ["plant"], seed: 9)
        second.shard = Shard(index: 1, count: 2)
        // The same devices in one process: counts added up, histograms merged, the longer run.
        var latency = a.latency, lateness = a.lateness
        latency.merge(b.latency)
        lateness.merge(b.lateness)
        let whole = RunResult(
            totals: sum(a.totals, b.totals), connectionsUpAtEnd: a.connectionsUpAtEnd + b.connectionsUpAtEnd,
            connections: a.connections + b.connections, durationSeconds: 10, reason: .duration,
            latency: latency, lateness: lateness,
            groups: [("sensor", sum(a.groups[0].totals, b.groups[0].totals)), ("meter", sum(a.groups[1].totals, b.groups[1].totals))],
            connectionErrors: ["refused": 2, "lost": 4], allConnectedSeconds: 2.25,
            verify: {
                var verify = VerifySummary(received: 105, lost: 5, duplicated: 2, outOfOrder: 4)
                verify.missedWhileAway = 5
                return verify
            }())
        let decoder = JSONDecoder()
        return (
            try decoder.decode(RunReport.self, from: try first.json()), try decoder.decode(RunReport.self, from: try second.json()),
            RunReport(result: whole, scenarios: ["plant"], seed: 9)
        )
    }

    @Test func mergedShardReportsAreTheReportOfTheWholeFleet() throws {
        let (first, second, whole) = try shardReports()
        let merged = try ReportMerge.merge([.init(name: "a.json", report: first), .init(name: "b.json", report: second)])
        #expect(merged.warnings.isEmpty)
        #expect(merged.report == whole)
        #expect(merged.report[.scheduled] == first[.scheduled] + second[.scheduled])
        #expect(
            merged.report.groups.map { $0[.published] } == [
                first.groups[0][.published] + second.groups[0][.published],
                first.groups[1][.published] + second.groups[1][.published],
            ])
        #expect(merged.report.ratePerSecond == (Double(merged.report[.published]) / 10 * 100).rounded() / 100)
    }

    @Test func percentilesComeFromTheMergedRawHistogramsNotAverages() throws {
        let (first, second, _) = try shardReports()
        let merged = try ReportMerge.merge([.init(name: "a", report: first), .init(name: "b", report: second)]).report
        var latency = try first.histograms!.latency.histogram()
        latency.merge(try second.histograms!.latency.histogram())
        var lateness = try first.histograms!.lateness.histogram()
        lateness.merge(try second.histograms!.lateness.histogram())
        #expect(merged.latency == Percentiles(latency))
        #expect(merged.lateness == Percentiles(lateness))
        #expect(try merged.histograms?.latency.histogram() == latency)
        #expect(merged.latency?.count == first.latency!.count + second.latency!.count)
        // The shards' latency counts differ (2,000 and 5,000), so an average of percentiles is not it.
        let averaged = (first.latency!.p99 + second.latency!.p99) / 2
        #expect(merged.latency?.p99 != averaged)
    }

    @Test func disagreementsAreWarnedAbout() throws {
        var (first, second, _) = try shardReports()
        second.seed = 10
        second.scenarios = ["other"]
        let merged = try ReportMerge.merge([.init(name: "a", report: first), .init(name: "b", report: second)])
        #expect(merged.warnings.contains { $0.contains("different seeds (9, 10)") })
        #expect(merged.warnings.contains { $0.contains("different scenarios") })
        #expect(merged.report.scenarios == ["plant", "other"])
        let missing = try ReportMerge.merge([.init(name: "a", report: first)])
        #expect(missing.warnings == ["shard 1/2 missing: the merged report is not the whole fleet's"])
        let twice = try ReportMerge.merge([.init(name: "a", report: first), .init(name: "c", report: first)])
        #expect(twice.warnings.contains("c and a are both shard 0/2; its devices are counted twice"))
    }

    /// Two runs one after the other are not shards of one: their sum is a rate that never was.
    @Test func reportsOfWholeRunsAreRefusedUnlessForced() throws {
        var (first, second, _) = try shardReports()
        second.shard = nil
        #expect {
            try ReportMerge.merge([.init(name: "a.json", report: first), .init(name: "monday.json", report: second)])
        } throws: { error in
            (error as? ReportMergeError)?.file == "monday.json"
                && (error as? ReportMergeError)?.message.contains("is the report of a whole run, not of a shard") == true
        }
        let forced = try ReportMerge.merge([.init(name: "a.json", report: first), .init(name: "monday.json", report: second)], force: true)
        #expect(forced.warnings.contains { $0.hasPrefix("merged with --force") })
        #expect(forced.report[.published] == first[.published] + second[.published])
        // One report alone is its own sum, shard or not.
        #expect(try ReportMerge.merge([.init(name: "monday.json", report: second)]).report == second)
    }

    @Test func aReportWithoutHistogramsIsRefusedByName() throws {
        var (first, second, _) = try shardReports()
        second.histograms = nil
        #expect(throws: ReportMergeError.self) {
            try ReportMerge.merge([.init(name: "a.json", report: first), .init(name: "old.json", report: second)])
        }
        do {
            _ = try ReportMerge.merge([.init(name: "a.json", report: first), .init(name: "old.json", report: second)])
        } catch {
            #expect(error.file == "old.json")
        }
        #expect(throws: ReportMergeError(file: nil, "no reports to merge")) { try ReportMerge.merge([]) }
        first.histograms?.latency.count += 1
        #expect(
            throws: ReportMergeError(
                file: "a.json", "histograms: count is \(first.latency!.count + 1) but the buckets hold \(first.latency!.count)")
        ) {
            try ReportMerge.merge([.init(name: "a.json", report: first)])
        }
    }

    @Test func anEmptyShardsReportMergesAsNothing() throws {
        let (first, _, _) = try shardReports()
        var empty = RunReport.empty(scenarios: ["plant"], seed: 9)
        empty.shard = Shard(index: 1, count: 2)
        let decoded = try JSONDecoder().decode(RunReport.self, from: try empty.json())
        let merged = try ReportMerge.merge([.init(name: "a", report: first), .init(name: "b", report: decoded)])
        #expect(merged.report[.published] == first[.published])
        #expect(merged.report.latency == first.latency)
        #expect(merged.report.groups == first.groups)
        #expect(merged.report.outcome == "duration, empty shard")
    }
}
