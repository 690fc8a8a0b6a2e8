/// The raw histograms of a run, beside the percentiles made from them.
public struct ReportHistograms: Codable, Sendable, Equatable {
    /// QoS 1/2 publish-to-acknowledgement latency.
    public var latency: HistogramData
    /// How late ticks were published after their deadlines.
    public var lateness: HistogramData

    public init(latency: Histogram, lateness: Histogram) {
        self.latency = HistogramData(latency)
        self.lateness = HistogramData(lateness)
    }
}
