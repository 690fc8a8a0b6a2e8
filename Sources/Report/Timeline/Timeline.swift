/// The run interval by interval (the report's `timeline`, `--report-format csv`, the HTML
/// report's charts): per interval, what was scheduled, published and acknowledged, the
/// connections up at its end, the errors, and its latency and lateness.
///
/// Memory is bounded: past `maximumPoints` intervals, neighbours are merged in pairs and the
/// interval doubles, so a 24-hour run at 1 s keeps 675 points of 128 s. Merging is exact: each
/// point keeps its histograms (`SparseHistogram`), not just their percentiles.
public struct Timeline: Sendable, Equatable {
    /// Seconds each point covers, but the last, which may be shorter (the run's end, or one
    /// that is still filling up after a merge).
    public private(set) var intervalSeconds: Double
    /// The wall-clock instant of the run's start, in seconds since 1970: `report merge` lines
    /// shards' timelines up by it.
    public var startedAt: Double
    public private(set) var points: [Point] = []
    /// Base intervals in each point but the last, a power of two.
    private var span = 1

    package static let maximumPoints = 1000

    public init(intervalSeconds: Double, startedAt: Double) {
        self.intervalSeconds = intervalSeconds
        self.startedAt = startedAt
    }

    public struct Point: Sendable, Equatable {
        /// Seconds from the run's start to the interval's.
        public var at: Double
        public var seconds: Double
        public var scheduled = 0
        public var published = 0
        public var acknowledged = 0
        /// Ticks of `onChange` groups kept back, unchanged: never to be sent, so a stage's
        /// `rate` leaves them out.
        public var unchanged = 0
        /// Connection errors (refusals, failures, losses) and messages that failed.
        public var errors = 0
        /// Connections up at the interval's end.
        public var connectionsUp = 0
        /// Messages the subscriber groups (`subscribers:`) received, all of them together.
        public var received = 0
        package var latency = SparseHistogram()
        package var lateness = SparseHistogram()
        /// Base intervals merged into this one.
        var span = 1

        package init(at: Double, seconds: Double) {
            self.at = at
            self.seconds = seconds
        }

        /// `self` followed by `next`.
        func merged(with next: Point) -> Point {
            var point = adding(next)
            point.seconds = next.at + next.seconds - at
            point.connectionsUp = next.connectionsUp
            point.span += next.span
            return point
        }

        /// The counts and histograms of both; the rest, this one's.
        func adding(_ other: Point) -> Point {
            var sum = self
            sum.scheduled += other.scheduled
            sum.published += other.published
            sum.acknowledged += other.acknowledged
            sum.unchanged += other.unchanged
            sum.errors += other.errors
            sum.received += other.received
            sum.latency = latency + other.latency
            sum.lateness = lateness + other.lateness
            return sum
        }

        fileprivate var heapBytes: Int { latency.heapBytes + lateness.heapBytes }
    }

    /// Adds the next base interval's point: into the last point while that one covers fewer
    /// base intervals than the others, as a new point otherwise.
    package mutating func append(_ point: Point) {
        if let last = points.last, last.span < span {
            points[points.count - 1] = last.merged(with: point)
        } else {
            points.append(point)
        }
        guard points.count > Self.maximumPoints else { return }
        span *= 2
        intervalSeconds *= 2
        points = stride(from: 0, to: points.count, by: 2).map { index in
            index + 1 < points.count ? points[index].merged(with: points[index + 1]) : points[index]
        }
    }

    /// A timeline of these points, read back from a report, or merged from shards'.
    package init(intervalSeconds: Double, startedAt: Double, points: [Point]) {
        self.intervalSeconds = intervalSeconds
        self.startedAt = startedAt
        self.points = points
    }

    /// Bytes the timeline holds, for what a long run's costs.
    package var bytes: Int {
        MemoryLayout<Timeline>.size + points.capacity * MemoryLayout<Point>.stride + points.reduce(0) { $0 + $1.heapBytes }
    }
}
