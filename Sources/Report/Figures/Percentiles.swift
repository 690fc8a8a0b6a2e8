/// A histogram summed up for the report: `{"unit":"ms","p50":…,"p90":…,"p99":…,"p999":…,"max":…}`,
/// in milliseconds with microsecond resolution, and how many values it holds.
public struct Percentiles: Codable, Sendable, Equatable {
    public var unit = "ms"
    public var count: UInt64
    package var p50: Double
    package var p90: Double
    public var p99: Double
    package var p999: Double
    public var max: Double

    public init(_ histogram: Histogram) {
        func ms(_ nanoseconds: UInt64) -> Double { (Double(nanoseconds) / 1000).rounded() / 1000 }
        count = histogram.count
        p50 = ms(histogram.percentile(50))
        p90 = ms(histogram.percentile(90))
        p99 = ms(histogram.percentile(99))
        p999 = ms(histogram.percentile(99.9))
        max = ms(histogram.max)
    }
}
