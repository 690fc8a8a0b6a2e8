/// Makes a run's timeline from its running figures: what changed since the last reading is a
/// point. The figures are the run's own counters and histograms, so the points add up to the
/// report's totals once the last reading is taken after the drain.
package struct TimelineRecorder: Sendable {
    package private(set) var timeline: Timeline
    /// When the next point is due, on the monotonic clock.
    package private(set) var due: UInt64
    private let interval: UInt64
    private let start: UInt64
    private var previousTime: UInt64
    private var previous = Totals()
    private var previousErrors = 0
    private var previousLatency = Histogram()
    private var previousLateness = Histogram()

    /// `interval` in nanoseconds, above 0; `start` on the monotonic clock, `startedAt` the same
    /// instant on the wall clock.
    package init(interval: UInt64, start: UInt64, startedAt: Double) {
        precondition(interval > 0, "a timeline needs an interval")
        self.interval = interval
        self.start = start
        previousTime = start
        due = start &+ interval
        timeline = Timeline(intervalSeconds: Double(interval) / 1e9, startedAt: startedAt)
    }

    /// The point from the last reading to `now`; `errors` is the run's error count so far.
    package mutating func record(_ totals: Totals, errors: Int, latency: Histogram, lateness: Histogram, at now: UInt64) {
        guard now > previousTime else { return }
        var point = Timeline.Point(at: Double(previousTime &- start) / 1e9, seconds: Double(now &- previousTime) / 1e9)
        point.scheduled = totals[.scheduled] - previous[.scheduled]
        point.published = totals[.published] - previous[.published]
        point.acknowledged = totals[.acknowledged] - previous[.acknowledged]
        point.errors = errors - previousErrors
        point.connectionsUp = totals.connectionsUp
        point.latency = SparseHistogram(latency.since(previousLatency))
        point.lateness = SparseHistogram(lateness.since(previousLateness))
        timeline.append(point)
        previous = totals
        previousErrors = errors
        previousLatency = latency
        previousLateness = lateness
        previousTime = now
        // On the grid from the start, even after a late reading, so points stay one interval.
        while due <= now { due &+= interval }
    }
}
