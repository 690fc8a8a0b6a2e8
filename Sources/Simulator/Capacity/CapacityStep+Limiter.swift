import Report

extension CapacityStep {
    /// Judges what held the step back, where it broke an SLO and its headroom was measured.
    package mutating func judgeLimiter(slos: [Assertion]) {
        guard !passed, let headroom else { return }
        let acknowledged = point.acknowledged > 0 && !point.latency.isEmpty
        (limiter, limitedBy) = headroom.limiter(
            brokenFirst: slos.first { $0.text == brokenFirst },
            ackLatencyP99Ms: acknowledged ? Double(point.latency.histogram.percentile(99)) / 1e6 : nil)
    }
}
