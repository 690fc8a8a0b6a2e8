/// A `Histogram` as the report keeps it, so that shard reports can be merged and their
/// percentiles computed again from the sum rather than averaged (`devsim report merge`):
/// `{"unit":"ns","significantBits":7,"count":n,"min":a,"max":b,"buckets":{"INDEX":COUNT,…}}`,
/// only the buckets that hold values. `INDEX` is the bucket's place in devsim's log-linear
/// layout (values below 128 ns exactly, then 64 buckets per power of two), which
/// `significantBits` names so a report of another layout is refused rather than misread.
public struct HistogramData: Codable, Sendable, Equatable {
    public var unit = "ns"
    package var significantBits = Histogram.significantBits
    public var count: UInt64
    /// The smallest and largest value recorded; absent when empty.
    package var min: UInt64?
    public var max: UInt64?
    package var buckets: [String: UInt64]

    public init(_ histogram: Histogram) {
        count = histogram.count
        min = histogram.isEmpty ? nil : histogram.min
        max = histogram.isEmpty ? nil : histogram.max
        buckets = Dictionary(uniqueKeysWithValues: histogram.buckets.map { (String($0.index), $0.count) })
    }

    /// The histogram again; the error says what does not fit.
    package func histogram() throws(HistogramDataError) -> Histogram {
        guard unit == "ns" else { throw HistogramDataError("unit is '\(unit)', expected 'ns'") }
        guard significantBits == Histogram.significantBits else {
            throw HistogramDataError("significantBits is \(significantBits), this devsim uses \(Histogram.significantBits)")
        }
        var pairs: [(index: Int, count: UInt64)] = []
        for (key, value) in buckets {
            guard let index = Int(key) else { throw HistogramDataError("bucket '\(key)' is not a bucket index") }
            pairs.append((index, value))
        }
        pairs.sort { $0.index < $1.index }
        guard let histogram = Histogram(buckets: pairs, min: min ?? 0, max: max ?? 0) else {
            throw HistogramDataError("the buckets do not make a histogram (an index out of range, a zero count, or min/max outside them)")
        }
        guard histogram.count == count else {
            throw HistogramDataError("count is \(count) but the buckets hold \(histogram.count)")
        }
        return histogram
    }
}
