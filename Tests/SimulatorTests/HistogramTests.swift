import Foundation
import Testing
@testable import Simulator

@Suite struct HistogramTests {
    /// A small fixed-seed generator, so a failure reproduces.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Latency-like values: mostly micro- to milliseconds, some outliers up to seconds.
    static func values(_ n: Int, seed: UInt64) -> [UInt64] {
        var random = SplitMix(state: seed)
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
