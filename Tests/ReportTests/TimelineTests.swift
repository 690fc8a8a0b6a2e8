import Foundation
import Testing

@testable import Report

@Suite struct TimelineTests {
    /// A base interval's point: `n` messages, their lateness spread over 0.1–`slowest` ms.
    private static func point(at second: Int, messages n: Int, slowest: Double = 2, connections: Int = 10) -> Timeline.Point {
        var point = Timeline.Point(at: Double(second), seconds: 1)
        point.scheduled = n
        point.published = n
        point.acknowledged = n / 2
        point.errors = second % 7 == 0 ? 1 : 0
        point.connectionsUp = connections
        var lateness = Histogram(), latency = Histogram()
        for index in 0..<n {
            let share = Double(index) / Double(max(1, n - 1))
            lateness.record(UInt64((0.1 + share * (slowest - 0.1)) * 1e6))
            if index % 2 == 0 { latency.record(UInt64((0.05 + share) * 1e6)) }
        }
        point.latency = SparseHistogram(latency)
        point.lateness = SparseHistogram(lateness)
        return point
    }

    @Test func aLongRunIsMergedInPairsAndKeepsEveryCountAndValue() {
        var timeline = Timeline(intervalSeconds: 1, startedAt: 0)
        var lateness = Histogram()
        for second in 0..<2500 {
            let point = Self.point(at: second, messages: 40 + second % 13)
            lateness.merge(point.lateness.histogram)
            timeline.append(point)
        }
        #expect(timeline.points.count <= Timeline.maximumPoints)
        #expect(timeline.intervalSeconds == 4)
        #expect(timeline.points.dropLast().allSatisfy { $0.seconds == 4 })
        #expect(zip(timeline.points, timeline.points.dropFirst()).allSatisfy { $0.at + $0.seconds == $1.at })
        let expected = (0..<2500).reduce(0) { $0 + 40 + $1 % 13 }
        #expect(timeline.points.reduce(0) { $0 + $1.published } == expected)
        #expect(timeline.points.reduce(0) { $0 + $1.errors } == (0..<2500).count { $0 % 7 == 0 })
        // Merging is exact: the points' histograms add up to the run's, bucket for bucket.
        var merged = Histogram()
        for point in timeline.points { merged.merge(point.lateness.histogram) }
        #expect(merged == lateness)
    }

    @Test func aMergedPointsPercentilesAreThoseOfItsValuesNotOfItsHalves() {
        var timeline = Timeline(intervalSeconds: 1, startedAt: 0)
        // One calm interval and one slow one: the pair's p99 is the slow one's, not a mean.
        for second in 0...Timeline.maximumPoints { timeline.append(Self.point(at: second, messages: 100, slowest: second == 1 ? 50 : 1)) }
        let pair = timeline.points[0]
        var both = Self.point(at: 0, messages: 100, slowest: 1).lateness.histogram
        both.merge(Self.point(at: 1, messages: 100, slowest: 50).lateness.histogram)
        #expect(pair.seconds == 2)
        #expect(pair.lateness.histogram.percentile(99) == both.percentile(99))
        #expect(pair.lateness.histogram.percentile(99) > 40_000_000)
        #expect(pair.connectionsUp == 10)
    }

    /// The cost the README gives: a day at the default interval is 675 points of 128 s.
    @Test func aDayAtOneSecondStaysSmall() {
        var timeline = Timeline(intervalSeconds: 1, startedAt: 0)
        for second in 0..<86_400 { timeline.append(Timeline.Point(at: Double(second), seconds: 1)) }
        #expect(timeline.points.count == 675)
        #expect(timeline.intervalSeconds == 128)
        #expect(timeline.points.dropLast().allSatisfy { $0.span == 128 })
        // What the points hold depends on how many buckets their values fill, not on how many
        // readings made them: an interval of 200 values spread over 0.1-5 ms, and the worst
        // case, every bucket from 1 us to 100 ms filled in both histograms.
        func day(of point: Timeline.Point) -> Int {
            var day = Timeline(intervalSeconds: 128, startedAt: 0)
            for index in 0..<675 {
                var next = point
                next.at = Double(index * 128)
                day.append(next)
            }
            return day.bytes
        }
        let typical = day(of: Self.point(at: 0, messages: 200, slowest: 5))
        var full = Histogram()
        var value: UInt64 = 1_000
        while value < 100_000_000 {
            full.record(value)
            value = Histogram.highestEquivalent(value) + 1
        }
        var worst = Timeline.Point(at: 0, seconds: 128)
        worst.latency = SparseHistogram(full)
        worst.lateness = SparseHistogram(full)
        let most = day(of: worst)
        #expect(most < 16_000_000, "a day's timeline holds up to \(most) bytes")
        print("a day's timeline at 1 s: 675 points of 128 s, \(typical) bytes for 200 values an interval, \(most) at most")
    }

    @Test func theJSONReadsBackAsTheSameTimeline() throws {
        var timeline = Timeline(intervalSeconds: 1, startedAt: 1_800_000_000.25)
        for second in 0..<5 { timeline.append(Self.point(at: second, messages: 30)) }
        var empty = Timeline.Point(at: 5, seconds: 0.5)
        empty.connectionsUp = 3
        timeline.append(empty)
        let data = try JSONEncoder().encode(timeline)
        #expect(try JSONDecoder().decode(Timeline.self, from: data) == timeline)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let points = try #require(object["points"] as? [[String: Any]])
        #expect(points.count == 6)
        #expect((points[0]["lateness"] as? [String: Any])?["p99"] != nil)
        #expect(points[5]["latency"] == nil, "nothing acknowledged: no latency")
    }

    @Test func shardsAreLinedUpByWallClockTime() {
        var first = Timeline(intervalSeconds: 1, startedAt: 1000)
        var second = Timeline(intervalSeconds: 1, startedAt: 1001.2)
        for index in 0..<3 {
            first.append(Self.point(at: index, messages: 10, connections: 4))
            second.append(Self.point(at: index, messages: 20, connections: 6))
        }
        let merged = Timeline.merged([first, second])!
        #expect(merged.startedAt == 1000)
        // The second starts 1.2 s later: its points fall in the first's second, third and a fourth.
        #expect(merged.points.map(\.at) == [0, 1, 2, 3])
        #expect(merged.points.map(\.published) == [10, 30, 30, 20])
        #expect(merged.points.map(\.connectionsUp) == [4, 10, 10, 6])
        var lateness = first.points[1].lateness.histogram
        lateness.merge(second.points[0].lateness.histogram)
        #expect(merged.points[1].lateness.histogram == lateness)
        #expect(Timeline.merged([]) == nil)
    }

    @Test func theCSVHasAHeaderAndALinePerPoint() {
        var timeline = Timeline(intervalSeconds: 1, startedAt: 0)
        timeline.append(Self.point(at: 0, messages: 10))
        timeline.append(Timeline.Point(at: 1, seconds: 0.25))
        let lines = timeline.csv.components(separatedBy: "\r\n")
        #expect(lines.count == 4 && lines[3].isEmpty)
        #expect(lines[0].split(separator: ",").map(String.init) == Timeline.csvColumns)
        let cells = lines[1].split(separator: ",", omittingEmptySubsequences: false)
        #expect(cells.count == Timeline.csvColumns.count)
        #expect(cells.prefix(7).map(String.init) == ["0.0", "1.0", "10", "10", "5", "10", "1"])
        #expect(cells.suffix(5).allSatisfy { Double($0) != nil })
        #expect(lines[2] == "1.0,0.25,0,0,0,0,0,,,,,0")
    }
}
