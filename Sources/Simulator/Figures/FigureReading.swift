import Report

/// The run's running figures at one instant, read together: a timeline's point, or a stage's,
/// is what changed between two readings.
package struct FigureReading: Sendable {
    /// On the monotonic clock.
    package var time: UInt64
    package var totals = Totals()
    /// Connection problems and failed messages so far.
    package var errors = 0
    package var latency = Histogram()
    package var lateness = Histogram()
    /// Ticks queued on the connections that are up, unlike `totals[.buffered]`, which counts
    /// what the connections that are down keep too (`offline: buffer`); `nil` where the loops
    /// were not asked, or not all answered. A capacity search's cool-down waits for none.
    package var queuedWhileUp: Int? = nil
    /// Messages the subscriber groups received so far.
    package var received = 0
    /// After a capacity step with a `lost` SLO: what the step published and what of it has
    /// arrived so far (`Verifier.stepLoss`); `nil` where not asked.
    package var stepLoss: StepLoss? = nil
    /// During a capacity search: devsim's own load and its machine's (`StepHeadroom`).
    package var load: GeneratorLoad? = nil

    package init(
        time: UInt64, totals: Totals = Totals(), errors: Int = 0, latency: Histogram = Histogram(), lateness: Histogram = Histogram()
    ) {
        self.time = time
        self.totals = totals
        self.errors = errors
        self.latency = latency
        self.lateness = lateness
    }

    /// What happened from `earlier` to this reading, timed from `start`; its connections are
    /// those up at this reading.
    package func point(since earlier: FigureReading, start: UInt64) -> Timeline.Point {
        var point = Timeline.Point(at: Double(earlier.time &- start) / 1e9, seconds: Double(time &- earlier.time) / 1e9)
        point.scheduled = totals[.scheduled] - earlier.totals[.scheduled]
        point.published = totals[.published] - earlier.totals[.published]
        point.acknowledged = totals[.acknowledged] - earlier.totals[.acknowledged]
        point.unchanged = totals[.unchanged] - earlier.totals[.unchanged]
        point.errors = errors - earlier.errors
        point.received = received - earlier.received
        point.connectionsUp = totals.connectionsUp
        point.latency = SparseHistogram(latency.since(earlier.latency))
        point.lateness = SparseHistogram(lateness.since(earlier.lateness))
        return point
    }
}
