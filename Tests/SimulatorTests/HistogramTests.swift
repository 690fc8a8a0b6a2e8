import Foundation
import Reactor
import Signals
import Testing
@testable import Report
@testable import Simulator

@Suite struct HistogramTests {
    @Test func whatWasRecordedSinceACopyIsTheDifference() {
        var whole = Histogram()
        for value in 1...100 { whole.record(UInt64(value) * 1_000_000) }
        let earlier = whole
        for _ in 0..<10 { whole.record(900_000_000) }
        let recent = whole.since(earlier)
        #expect(recent.count == 10)
        #expect(abs(Double(recent.percentile(99)) - 900_000_000) <= 900_000_000 * 0.016)
        #expect(recent.max <= whole.max && recent.min >= 800_000_000)
        #expect(whole.since(whole).isEmpty)
    }

    /// Issue 16, item 4: the status line's ack p99 is the last interval's, labelled so; the
    /// whole run's would hide a knee behind the earlier quiet seconds.
    @Test func theStatusLineGivesTheLastIntervalsP99AndSaysSo() {
        let lines = Locked<[String]>([])
        let logger = Logger(minimumLevel: .info) { line in lines.withLock { $0.append(line) } }
        let status = StatusReporter(logger: logger, connections: { 1 }, start: 0)
        var latency = Histogram()
        for _ in 0..<1000 { latency.record(2_000_000) }  // a quiet first interval at 2 ms
        status.report(Totals(), latency: latency, errors: 0, at: 5_000_000_000)
        for _ in 0..<5 { latency.record(300_000_000) }  // a knee: 300 ms, 0.5 % of the run
        status.report(Totals(), latency: latency, errors: 0, at: 10_000_000_000)
        let reported = lines.withLock { $0 }
        #expect(reported.count == 2)
        #expect(reported.first?.contains("ack p99 2.0 ms over the last 5.0 s") == true, "\(reported)")
        // The whole run's p99 is still 2 ms; the interval's is the knee's.
        #expect(latency.percentile(99) < 3_000_000)
        #expect(reported.last?.contains("ack p99 30") == true && reported.last?.contains("ms over the last 5.0 s") == true, "\(reported)")
    }

    /// Latency-like values: mostly micro- to milliseconds, some outliers up to seconds.
    static func values(_ n: Int, seed: UInt64) -> [UInt64] {
        // Fixed-seed, so a failure reproduces.
        var random = SplitMix64(seed: seed)
        return (0..<n).map { _ in
            UInt64(pow(10, Double.random(in: 1...9.5, using: &random)))
        }
    }

    @Test func bucketsAreContiguousAndBoundTheirValues() {
        var previousHighest: UInt64?
        for index in 0..<Histogram.bucketCount {
            let low = Histogram.lowest(inBucket: index), high = Histogram.highest(inBucket: index)
            #expect(low <= high)
            #expect(Histogram.bucket(of: low) == index)
            #expect(Histogram.bucket(of: high) == index)
            if let previousHighest { #expect(low == previousHighest &+ 1) }
            previousHighest = high
            if low >= 128 { #expect(Double(high - low) / Double(low) <= 1.0 / 64) }
        }
        #expect(previousHighest == .max)
    }

    @Test(arguments: [1, 7, 100, 10_000])
    func percentilesMatchASortedReference(count: Int) {
        let values = Self.values(count, seed: UInt64(count))
        var histogram = Histogram()
        for value in values { histogram.record(value) }
        let sorted = values.sorted()
        for p in [0.0, 1, 25, 50, 90, 99, 99.9, 100] {
            let rank = max(1, Int((Double(count) * p / 100).rounded(.up)))
            let reference = sorted[rank - 1]
            #expect(histogram.percentile(p) == min(Histogram.highestEquivalent(reference), sorted.last!), "p\(p) of \(count)")
        }
        #expect(histogram.max == sorted.last)
        #expect(histogram.min == sorted.first)
        #expect(histogram.count == UInt64(count))
    }

    @Test func mergingEqualsRecordingEverythingInOne() {
        let a = Self.values(5_000, seed: 1), b = Self.values(3_000, seed: 2)
        var left = Histogram(), right = Histogram(), all = Histogram()
        for value in a {
            left.record(value)
            all.record(value)
        }
        for value in b {
            right.record(value)
            all.record(value)
        }
        left.merge(right)
        #expect(left == all)
        for p in [50.0, 90, 99, 99.9] { #expect(left.percentile(p) == all.percentile(p)) }
    }

    @Test func emptyAndExtremes() {
        var histogram = Histogram()
        #expect(histogram.percentile(99) == 0)
        histogram.record(0)
        histogram.record(.max)
        #expect(histogram.percentile(50) == 0)
        #expect(histogram.percentile(100) == .max)
    }
}
