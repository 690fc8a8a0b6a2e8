import Report

extension CapacityStep {
    /// Judges what held the step back, where it broke an SLO and its headroom was measured.
    package mutating func judgeLimiter(slos: [Assertion]) {
        guard !passed, let headroom else { return }
        // A window that fell behind (messages queued for a slot, the step short of its schedule)
        // made them wait however quick each acknowledgement was.
        let keptUp = Double(point.published) >= 0.99 * Double(point.scheduled)
        let acknowledged = point.acknowledged > 0 && !point.latency.isEmpty && keptUp
        (limiter, limitedBy) = headroom.limiter(
            brokenFirst: slos.first { $0.text == brokenFirst },
            ackLatencyP99Ms: acknowledged ? Double(point.latency.histogram.percentile(99)) / 1e6 : nil)
    }
}
