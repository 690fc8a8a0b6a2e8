import Report

/// Makes a run's timeline from its running figures: what changed since the last reading is a
/// point. The figures are the run's own counters and histograms, so the points add up to the
/// report's totals once the last reading is taken after the drain.
package struct TimelineTracker: Sendable {
    package private(set) var timeline: Timeline
    /// When the next point is due, on the monotonic clock.
    package private(set) var due: UInt64
    private let interval: UInt64
    private let start: UInt64
    private var previous: FigureReading

    /// `interval` in nanoseconds, above 0; `start` on the monotonic clock, `startedAt` the same
    /// instant on the wall clock.
    package init(interval: UInt64, start: UInt64, startedAt: Double) {
        precondition(interval > 0, "a timeline needs an interval")
        self.interval = interval
        self.start = start
        previous = FigureReading(time: start)
        due = start &+ interval
        timeline = Timeline(intervalSeconds: Double(interval) / 1e9, startedAt: startedAt)
    }

    /// The point from the last reading to this one.
    package mutating func record(_ reading: FigureReading) {
        guard reading.time > previous.time else { return }
        timeline.append(reading.point(since: previous, start: start))
        previous = reading
        // On the grid from the start, even after a late reading, so points stay one interval.
        while due <= reading.time { due &+= interval }
    }
}
