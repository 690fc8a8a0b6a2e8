/// The raw histograms of a run, beside the percentiles made from them.
public struct ReportHistograms: Codable, Sendable, Equatable {
    /// QoS 1/2 publish-to-acknowledgement latency.
    public var latency: HistogramData
    /// How late ticks were published after their deadlines.
    public var lateness: HistogramData
    /// Each phase of connecting (`ConnectTimings`); absent when no connection was made, and in
    /// older reports.
    public var connectTimings: ConnectPhases<HistogramData>? = nil

    public init(latency: Histogram, lateness: Histogram) {
        self.latency = HistogramData(latency)
        self.lateness = HistogramData(lateness)
    }
}
