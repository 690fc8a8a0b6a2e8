import Foundation
import Signals
import Testing
@testable import Report

/// Issue 29, item 4: how long connecting took, phase by phase.
@Suite struct ConnectTimingsTests {
    /// Attempts with every combination of phases, marks in order, out of order, and missing.
    private static func attempts() -> [ConnectAttempt] {
        // Seeded, so that the attempts are the same at every run.
        var generator = SplitMix64(seed: 29)
        var attempts: [ConnectAttempt] = []
        for _ in 0..<500 {
            let start = UInt64.random(in: 1_000...1_000_000, using: &generator)
            func mark() -> UInt64? {
                Int.random(in: 0..<5, using: &generator) == 0 ? nil : start &+ UInt64.random(in: 0...3_000_000, using: &generator) &- 500
            }
            attempts.append(
                ConnectAttempt(
                    started: start, tcpConnected: mark(), usesTLS: Bool.random(using: &generator), tlsFinished: mark(),
                    usesWebSocket: Bool.random(using: &generator), upgraded: mark(),
                    connack: start &+ UInt64.random(in: 0...4_000_000, using: &generator) &- 100))
        }
        return attempts
    }

    @Test func eachPhaseIsAtMostTheWholeAndTheyAddUpToIt() {
        for attempt in Self.attempts() {
            let phases = attempt.phases()
            let whole = phases.first { $0.0 == .connect }?.1 ?? .max
            #expect(phases.allSatisfy { $0.1 <= whole }, "\(attempt): \(phases)")
            #expect(phases.filter { $0.0 != .connect }.reduce(0) { $0 + $1.1 } == whole, "\(attempt): \(phases)")
        }
    }

    @Test func anAttemptHasThePhasesItWentThroughInOrder() {
        let tcp = ConnectAttempt(started: 100, tcpConnected: 150, connack: 400).phases()
        #expect(tcp.map(\.0) == [.connect, .tcpConnect, .connack] && tcp.map(\.1) == [300, 50, 250])
        let tls = ConnectAttempt(started: 100, tcpConnected: 150, usesTLS: true, tlsFinished: 350, connack: 400).phases()
        #expect(tls.map(\.0) == [.connect, .tcpConnect, .tlsHandshake, .connack] && tls.map(\.1) == [300, 50, 200, 50])
        let wss = ConnectAttempt(
            started: 100, tcpConnected: 150, usesTLS: true, tlsFinished: 350, usesWebSocket: true, upgraded: 370, connack: 400
        ).phases()
        #expect(wss.map(\.0) == [.connect, .tcpConnect, .tlsHandshake, .wsUpgrade, .connack] && wss.map(\.1) == [300, 50, 200, 20, 30])
        // A TCP connect made within the call: as short as that.
        #expect(ConnectAttempt(started: 100, tcpConnected: 100, connack: 400).phases().map(\.1) == [300, 0, 300])
        // A phase whose end was not seen ends with the next one seen.
        let unseen = ConnectAttempt(started: 100, tcpConnected: nil, usesTLS: true, tlsFinished: 350, connack: 400).phases()
        #expect(unseen.map(\.1) == [300, 250, 0, 50])
    }

    @Test func histogramsCountOneSamplePerAttemptAndTheReportHasOnlyThePhasesThatHappened() throws {
        var timings = ConnectTimings()
        #expect(ConnectPhases(timings, Percentiles.init) == nil)
        timings.record(ConnectAttempt(started: 0, tcpConnected: 1_000_000, connack: 3_000_000))
        timings.record(ConnectAttempt(started: 0, tcpConnected: 2_000_000, usesTLS: true, tlsFinished: 5_000_000, connack: 6_000_000))
        #expect(timings[.connect].count == 2 && timings[.tcpConnect].count == 2 && timings[.connack].count == 2)
        #expect(timings[.tlsHandshake].count == 1 && timings[.wsUpgrade].isEmpty)

        var report = RunReport.empty(scenarios: ["s"], seed: 1)
        report.withConnectTimings(timings)
        let object = try #require(JSONSerialization.jsonObject(with: try report.json()) as? [String: Any])
        let figures = try #require(object["connectTimings"] as? [String: [String: Any]], "\(object)")
        #expect(Set(figures.keys) == ["connect", "tcpConnect", "tlsHandshake", "connack"])
        #expect(figures["connect"]?["count"] as? Int == 2 && figures["connect"]?["p99"] as? Double == 6)
        let raw = (object["histograms"] as? [String: Any])?["connectTimings"] as? [String: Any]
        #expect(Set(raw?.keys.map { $0 } ?? []) == ["connect", "tcpConnect", "tlsHandshake", "connack"])

        // Read back, as `report merge` does: the same histograms.
        let read = try JSONDecoder().decode(RunReport.self, from: try report.json())
        #expect(read == report)
        #expect(try ConnectTimings(#require(read.histograms?.connectTimings)) == timings)
    }

    @Test func shardReportsMergeTheirHistograms() throws {
        func shard(_ index: Int, _ attempts: [ConnectAttempt]) -> ReportMerge.Input {
            var timings = ConnectTimings()
            for attempt in attempts { timings.record(attempt) }
            var report = RunReport.empty(scenarios: ["s"], seed: 1)
            report.withConnectTimings(timings)
            report.shard = Shard(index: index, count: 2)
            return ReportMerge.Input(name: "shard\(index).json", report: report)
        }
        let merged = try ReportMerge.merge([
            shard(0, [ConnectAttempt(started: 0, tcpConnected: 1_000, connack: 2_000_000)]),
            shard(
                1,
                (0..<3).map { _ in ConnectAttempt(started: 0, tcpConnected: 1_000, usesWebSocket: true, upgraded: 5_000, connack: 9_000_000)
                }),
        ]).report
        #expect(merged.connectTimings?[.connect]?.count == 4)
        #expect(merged.connectTimings?[.wsUpgrade]?.count == 3 && merged.connectTimings?[.tlsHandshake] == nil)
        #expect(merged.connectTimings?[.connect]?.p50 == 9 && merged.histograms?.connectTimings?[.connect]?.count == 4)
        // Reports of a devsim before the timings merge as having none.
        let old = try ReportMerge.merge([shard(0, []), shard(1, [])]).report
        #expect(old.connectTimings == nil && old.histograms?.connectTimings == nil)
    }

    @Test func expectReadsTheWholeAndEachPhaseAndSaysWhyOneIsMissing() throws {
        var timings = ConnectTimings()
        timings.record(ConnectAttempt(started: 0, tcpConnected: 1_000_000, connack: 3_000_000))
        var report = RunReport.empty(scenarios: ["s"], seed: 1)
        #expect(try Assertion("connect.p99<200ms").evaluate(report).message == "not available: no connection was accepted")
        report.withConnectTimings(timings)
        #expect(try Assertion("connect.p99<200ms").evaluate(report).passed)
        #expect(try !Assertion("connect.p99<0ms").evaluate(report).passed)
        #expect(try Assertion("connect.count==1").evaluate(report).passed)
        #expect(try Assertion("tcpConnect.p99<=1ms").evaluate(report).passed)
        #expect(try Assertion("connack.p99.9<=2ms").evaluate(report).passed)
        let tls = try Assertion("tlsHandshake.p99<1s").evaluate(report)
        #expect(!tls.passed && tls.message == "not available: no connection used TLS (mqtts:// or wss://)")
        let ws = try Assertion("wsUpgrade.max<1s").evaluate(report)
        #expect(!ws.passed && ws.message == "not available: no connection went over a WebSocket (ws:// or wss://)")
        #expect(ReportMetrics.summary.contains("connect.*, tcpConnect.*, tlsHandshake.*, wsUpgrade.*, connack.*"))
    }

    @Test func theHTMLReportHasAConnectTileWhenAConnectionWasMade() {
        var report = RunReport.empty(scenarios: ["s"], seed: 1)
        #expect(!HTMLReport.page(report).contains("data-figure=\"connect\""))
        var timings = ConnectTimings()
        timings.record(ConnectAttempt(started: 0, tcpConnected: 1_000_000, connack: 3_000_000))
        report.withConnectTimings(timings)
        #expect(HTMLReport.page(report).contains("<div class=\"figure\" data-figure=\"connect\">connect p99<b>3 ms</b></div>"))
    }
}
