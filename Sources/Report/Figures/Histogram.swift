/// A log-linear histogram of durations in nanoseconds, HDR-style: fixed memory, values below
/// 128 ns kept exactly, larger ones in buckets no wider than 1/64 of their value (under 1.6 %
/// error), up to the largest `UInt64`. One per event loop, merged for the report.
public struct Histogram: Sendable, Equatable {
    /// Bits of each value kept: 2^7 exact values, then 64 buckets per power of two.
    @usableFromInline static let significantBits = 7
    @usableFromInline static let half = 1 << (significantBits - 1)
    static let bucketCount = (64 - significantBits) * half + 2 * half

    // Stored under names of their own, settable by `record` alone outside this file: it is
    // inlined into the loops (see `record`), so what it writes must be usable from inlined code.
    @usableFromInline var counts: [UInt64]
    @usableFromInline var recorded: UInt64 = 0
    @usableFromInline var smallest: UInt64 = .max
    @usableFromInline var largest: UInt64 = 0

    public var count: UInt64 { recorded }
    package var min: UInt64 { smallest }
    public var max: UInt64 { largest }

    public init() {
        counts = Array(repeating: 0, count: Self.bucketCount)
    }

    public var isEmpty: Bool { count == 0 }

    /// Inlinable, though only the package records: every message published records its
    /// lateness here, from Simulator's loops, and another module gets no body to inline
    /// otherwise (a call a message, where it was inlined while the histogram was Simulator's).
    @inlinable @inline(__always)
    public mutating func record(_ value: UInt64) {
        counts[Self.bucket(of: value)] &+= 1
        recorded &+= 1
        if value < smallest { smallest = value }
        if value > largest { largest = value }
    }

    public mutating func merge(_ other: Histogram) {
        guard !other.isEmpty else { return }
        for index in counts.indices { counts[index] &+= other.counts[index] }
        recorded &+= other.recorded
        smallest = Swift.min(smallest, other.smallest)
        largest = Swift.max(largest, other.largest)
    }

    /// How many values were at most `bound`, at the buckets' resolution: a bucket counts whole
    /// when its highest value is at most `bound` (a Prometheus bucket's `le`).
    package func count(atMost bound: UInt64) -> UInt64 {
        var total: UInt64 = 0
        for index in counts.indices where counts[index] > 0 && Self.highest(inBucket: index) <= bound { total &+= counts[index] }
        return total
    }

    /// The values' sum, at the buckets' resolution (each bucket's values counted at its middle,
    /// within 1.6 % of each value); not kept exactly, which would cost the publish path an add.
    package var approximateSum: Double {
        var sum = 0.0
        for index in counts.indices where counts[index] > 0 {
            let middle = (Double(Self.lowest(inBucket: index)) + Double(Self.highest(inBucket: index))) / 2
            sum += middle * Double(counts[index])
        }
        return sum
    }

    /// What was recorded after `earlier`, a copy of this histogram taken before: the counts'
    /// difference, bucket by bucket. Its `max` is the highest value of its top bucket (never
    /// above the whole histogram's), its `min` the lowest of its bottom one: the values
    /// themselves were not kept.
    package func since(_ earlier: Histogram) -> Histogram {
        var interval = Histogram()
        for index in counts.indices where counts[index] > earlier.counts[index] {
            let added = counts[index] - earlier.counts[index]
            interval.counts[index] = added
            interval.recorded &+= added
            interval.smallest = Swift.min(interval.smallest, Swift.max(Self.lowest(inBucket: index), min))
            interval.largest = Swift.max(interval.largest, Swift.min(Self.highest(inBucket: index), max))
        }
        return interval
    }

    /// The value at percentile `p` (0…100): the highest value of the bucket holding the sample of
    /// rank ⌈p/100 × count⌉, never above the largest value recorded. 0 when empty.
    package func percentile(_ p: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        let rank = Swift.max(1, UInt64((Double(count) * Swift.min(Swift.max(p, 0), 100) / 100).rounded(.up)))
        var seen: UInt64 = 0
        for index in counts.indices where counts[index] > 0 {
            seen &+= counts[index]
            if seen >= rank { return Swift.min(Self.highest(inBucket: index), max) }
        }
        return max
    }

    /// The buckets that hold values, in order: each one's index and how many values it holds.
    /// With `count`, `min` and `max` this is the whole histogram (`init(buckets:min:max:)`).
    package var buckets: [(index: Int, count: UInt64)] {
        counts.indices.compactMap { counts[$0] > 0 ? ($0, counts[$0]) : nil }
    }

    /// The histogram that `buckets`, `min` and `max` describe; `count` is the buckets' sum.
    /// `nil` when a bucket index is out of range or given twice, a count is 0, or `min`/`max`
    /// do not fit the buckets.
    public init?(buckets: [(index: Int, count: UInt64)], min: UInt64, max: UInt64) {
        self.init()
        var total: UInt64 = 0
        for bucket in buckets {
            guard counts.indices.contains(bucket.index), counts[bucket.index] == 0, bucket.count > 0 else { return nil }
            counts[bucket.index] = bucket.count
            let (sum, overflow) = total.addingReportingOverflow(bucket.count)
            guard !overflow else { return nil }
            total = sum
        }
        guard total > 0 else { return }
        guard let first = buckets.map(\.index).min(), let last = buckets.map(\.index).max(),
            min <= max, Self.bucket(of: min) == first, Self.bucket(of: max) == last
        else { return nil }
        recorded = total
        smallest = min
        largest = max
    }

    @inlinable @inline(__always)
    static func bucket(of value: UInt64) -> Int {
        guard value >= UInt64(2 * half) else { return Int(value) }
        let highestBit = 63 - value.leadingZeroBitCount
        let shift = highestBit - (significantBits - 1)
        return shift * half + Int(value >> UInt64(shift))
    }

    static func lowest(inBucket index: Int) -> UInt64 {
        guard index >= 2 * half else { return UInt64(index) }
        let shift = index / half - 1
        return UInt64(index - shift * half) << UInt64(shift)
    }

    /// The highest value that falls in the same bucket as `value`.
    package static func highestEquivalent(_ value: UInt64) -> UInt64 {
        highest(inBucket: bucket(of: value))
    }

    static func highest(inBucket index: Int) -> UInt64 {
        guard index >= 2 * half else { return UInt64(index) }
        let shift = index / half - 1
        return lowest(inBucket: index) &+ ((1 << UInt64(shift)) - 1)
    }
}
