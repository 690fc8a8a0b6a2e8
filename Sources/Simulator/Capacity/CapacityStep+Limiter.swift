import Report

extension CapacityStep {
    /// Judges what held the step back, where it broke an SLO and its headroom was measured.
    package mutating func judgeLimiter(slos: [Assertion]) {
        guard !passed, let headroom else { return }
        (limiter, limitedBy) = headroom.limiter(brokenFirst: slos.first { $0.text == brokenFirst })
    }
}
