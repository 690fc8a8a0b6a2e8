import Testing
@testable import Service
@testable import Report
@testable import Simulator

/// Issue 25, item 2: the live page's charts hold the run since it began, thinned, not cut.
@Suite struct LiveHistoryTests {
    /// The run `seconds` in, having published and scheduled `perSecond` a second, each
    /// acknowledged in `latencyMs`.
    private func result(at seconds: Int, perSecond: Int = 10, latencyMs: UInt64? = nil) -> RunResult {
        var totals = Totals()
        totals[.published] = seconds * perSecond
        totals[.scheduled] = seconds * perSecond
        var latency = Histogram()
        if let latencyMs { for _ in 0..<(seconds * perSecond) { latency.record(latencyMs * 1_000_000) } }
        return RunResult(
            totals: totals, connectionsUpAtEnd: 0, connections: 1, durationSeconds: Double(seconds), reason: .running,
            latency: latency, lateness: Histogram(), groups: [], connectionErrors: [:], allConnectedSeconds: nil)
    }

    @Test func aLongRunIsThinnedToItsLimitAndKeepsItsStart() {
        var history = LiveHistory(limit: 10)
        var thinnings = 0
        for second in 0..<1000 where history.record(result(at: second)).thinned { thinnings += 1 }
        _ = history.close(result(at: 1000))
        #expect(history.points.count <= 10 && history.points.count > 5, "\(history.points.count)")
        #expect(history.points.first?.start == 0, "the run since it began, not its last minutes")
        #expect(history.points.last?.end == 1000, "the last point ends where the run did")
        #expect(thinnings > 0 && history.readingsPerPoint > 1)
        // Neighbours joined, nothing lost: the points' counts add up to the run's.
        #expect(history.points.reduce(0) { $0 + $1.published } == 10_000)
        #expect(zip(history.points, history.points.dropFirst()).allSatisfy { $0.end == $1.start }, "no gap between points")
    }

    /// A thinned point keeps the higher of its two percentiles, so a spike stays on the chart.
    @Test func aThinnedPointKeepsItsSpike() {
        var history = LiveHistory(limit: 2)
        var run = result(at: 0, latencyMs: 2)
        _ = history.record(run)
        var latency = run.latency
        for (second, ms) in [(1, UInt64(2)), (2, 900), (3, 2)] {
            for _ in 0..<10 { latency.record(ms * 1_000_000) }
            run = result(at: second)
            run.latency = latency
            _ = history.record(run)
        }
        let spike = history.points.first?.latency?.p99 ?? 0
        #expect(history.readingsPerPoint == 2 && spike > 850, "\(history.points)")
    }

    /// A page's first status has the rate of the last second, not none (its tiles read 0.0).
    @Test func aNewStreamsFirstStatusHasTheRateAndTheHistory() {
        let hub = EventHub()
        func view(_ seconds: Int) -> DevsimService.View {
            let result = result(at: seconds, perSecond: 25)
            return DevsimService.View(live: Fleet.Live(result: result, stuckLoops: [])) {
                RunReport(result: result, scenarios: [], seed: 1)
            }
        }
        for second in 1...3 { hub.tick(view(second)) }
        let opening = String(decoding: hub.opening(view(3)), as: UTF8.self)
        #expect(opening.contains("event: history\ndata: {\"readingsPerPoint\":1,\"points\":[[1,25,25,null,null,null,null],[2,25,25,"))
        #expect(opening.contains("event: status\ndata: {") && opening.contains("\"publishedPerSecond\":25"), "\(opening)")
    }

    /// Once the run ended a stream says so, and a page stops reconnecting.
    @Test func aStreamOpenedAfterTheEndIsToldSo() {
        let hub = EventHub()
        let run = result(at: 4)
        let view = DevsimService.View(live: Fleet.Live(result: run, stuckLoops: [])) { RunReport(result: run, scenarios: [], seed: 1) }
        hub.finished(run, outcome: "duration")
        let opening = String(decoding: hub.opening(view), as: UTF8.self)
        #expect(opening.hasSuffix("event: finished\ndata: {\"outcome\":\"duration\",\"durationSeconds\":4.000}\n\n"), "\(opening)")
    }
}
