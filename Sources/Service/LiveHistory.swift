import Report
import Simulator

/// The live page's charts since the run began, kept by the server so that a page opened late,
/// or again, draws the whole run. Bounded however long the run: at `limit` points each pair of
/// neighbours becomes one, and each point from then on stands for twice the seconds, so a day
/// keeps as many points as a minute. Confined to the HTTP loop, as `EventHub` is.
struct LiveHistory {
    /// One stretch of the run: what was published and scheduled in it, and its percentiles.
    struct Point: Equatable {
        /// Seconds since the run began.
        var start: Double
        var end: Double
        var published: Int
        var scheduled: Int
        /// Milliseconds; `nil` when nothing was measured in the stretch.
        var latency: (p50: Double, p99: Double)?
        var lateness: (p50: Double, p99: Double)?

        static func == (a: Point, b: Point) -> Bool {
            a.start == b.start && a.end == b.end && a.published == b.published && a.scheduled == b.scheduled
                && a.latency?.p50 == b.latency?.p50 && a.latency?.p99 == b.latency?.p99
                && a.lateness?.p50 == b.lateness?.p50 && a.lateness?.p99 == b.lateness?.p99
        }

        /// `a` and the point after it as one: counts added, and the higher of each percentile,
        /// since theirs cannot be told from two points' own and a spike must not thin away.
        static func joined(_ a: Point, _ b: Point) -> Point {
            func higher(_ x: (p50: Double, p99: Double)?, _ y: (p50: Double, p99: Double)?) -> (p50: Double, p99: Double)? {
                guard let x, let y else { return x ?? y }
                return (max(x.p50, y.p50), max(x.p99, y.p99))
            }
            return Point(
                start: a.start, end: b.end, published: a.published + b.published, scheduled: a.scheduled + b.scheduled,
                latency: higher(a.latency, b.latency), lateness: higher(a.lateness, b.lateness))
        }

        /// `[seconds, published/s, scheduled/s, ack p50, p99, lateness p50, p99]`, times in ms,
        /// `null` for what was not measured: compact, for a page that may hold hundreds.
        var json: String {
            let span = max(end - start, 1e-9)
            let values: [Double?] = [
                end, Double(published) / span, Double(scheduled) / span, latency?.p50, latency?.p99, lateness?.p50, lateness?.p99,
            ]
            return "[" + values.map { $0.map { JSONText.number(($0 * 1000).rounded() / 1000) } ?? "null" }.joined(separator: ",") + "]"
        }
    }

    /// Where the point under way began.
    private struct Mark {
        var seconds: Double
        var published: Int
        var scheduled: Int
        var latency: Histogram
        var lateness: Histogram
    }

    static let defaultLimit = 600

    private(set) var points: [Point] = []
    /// Readings a point takes: 1 until the first thinning, then 2, 4, …
    private(set) var readingsPerPoint = 1
    private let limit: Int
    /// The run's start, when every count was 0: the first point begins there.
    private var mark = Mark(seconds: 0, published: 0, scheduled: 0, latency: Histogram(), lateness: Histogram())
    private var readings = 0

    init(limit: Int = defaultLimit) {
        self.limit = max(2, limit)
    }

    /// A reading of the run's figures so far, once a second; returns the point it completed,
    /// if any, and whether the points before it changed (thinned to make room), when a page
    /// must have them all again.
    mutating func record(_ result: RunResult) -> (point: Point?, thinned: Bool) {
        let now = Mark(
            seconds: result.durationSeconds, published: result.totals[.published],
            // Ticks kept back unchanged (onChange) were never to be sent, as the status line counts them.
            scheduled: result.totals[.scheduled] - result.totals[.unchanged], latency: result.latency, lateness: result.lateness)
        guard now.seconds > mark.seconds else { return (nil, false) }
        readings += 1
        guard readings >= readingsPerPoint else { return (nil, false) }
        let point = Point(
            start: mark.seconds, end: now.seconds, published: now.published - mark.published, scheduled: now.scheduled - mark.scheduled,
            latency: Self.percentiles(now.latency.since(mark.latency)), lateness: Self.percentiles(now.lateness.since(mark.lateness)))
        self.mark = now
        readings = 0
        var thinned = false
        if points.count == limit {
            points = stride(from: 0, to: points.count, by: 2).map { index in
                index + 1 < points.count ? Point.joined(points[index], points[index + 1]) : points[index]
            }
            readingsPerPoint *= 2
            thinned = true
        }
        points.append(point)
        return (point, thinned)
    }

    /// The run ended with `result`: the point under way, however few readings it has, ends
    /// where the ticking did; `nil` when the readings already went past that.
    mutating func close(_ result: RunResult) -> (point: Point?, thinned: Bool) {
        readings = max(readings, readingsPerPoint - 1)
        let (point, thinned) = record(result)
        // A run that ended just after a reading would end on a stretch of a few milliseconds,
        // its rate near 0: it joins the point before it instead, which a page then has again.
        guard let point, point.end - point.start < Self.shortest, points.count > 1 else { return (point, thinned) }
        points.removeLast()
        points[points.count - 1] = Point.joined(points[points.count - 1], point)
        return (nil, true)
    }

    /// Seconds: a last stretch shorter than this joins the one before.
    private static let shortest = 0.5

    /// `{"readingsPerPoint":N,"points":[…]}`: the `history` event's data.
    var json: String {
        "{\"readingsPerPoint\":\(readingsPerPoint),\"points\":[" + points.map(\.json).joined(separator: ",") + "]}"
    }

    private static func percentiles(_ histogram: Histogram) -> (p50: Double, p99: Double)? {
        histogram.isEmpty ? nil : (Double(histogram.percentile(50)) / 1e6, Double(histogram.percentile(99)) / 1e6)
    }
}
