extension RunReport {
    /// Sets `connectTimings` and the raw histograms behind it (`histograms.connectTimings`)
    /// from `timings`: both absent when no connection was made.
    package mutating func withConnectTimings(_ timings: ConnectTimings) {
        details.connectTimings = ConnectPhases(timings, Percentiles.init)
        details.histograms?.connectTimings = ConnectPhases(timings, HistogramData.init)
    }
}
