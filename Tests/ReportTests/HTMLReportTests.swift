import Foundation
import Testing

@testable import Report

@Suite struct HTMLReportTests {
    private static func report(timeline: Timeline?) -> RunReport {
        var totals = Totals()
        totals.figures[.scheduled] = 30
        totals.figures[.published] = 30
        var result = RunResult(
            totals: totals, connectionsUpAtEnd: 1, connections: 1, durationSeconds: 3, reason: .duration, latency: Histogram(),
            lateness: Histogram(), groups: [(name: "<b>room</b>", totals: totals)], connectionErrors: [:], allConnectedSeconds: 0)
        result.timeline = timeline
        result.reloads = [Reload(atSeconds: 1.5)]
        var report = RunReport(result: result, scenarios: ["a & b"], seed: 1)
        report.expectations = [Verdict(assertion: "lateness.p99<5ms", passed: true, actual: 0.5, message: "0.5 ms")]
        return report
    }

    @Test func namesAreEscapedAndTheChartsHaveAPointPerInterval() {
        var timeline = Timeline(intervalSeconds: 1, startedAt: 1_800_000_000)
        for second in 0..<3 {
            var point = Timeline.Point(at: Double(second), seconds: 1)
            point.scheduled = 10
            point.published = 10
            point.connectionsUp = 1
            var lateness = Histogram()
            lateness.record(UInt64(second + 1) * 1_000_000)
            point.lateness = SparseHistogram(lateness)
            timeline.append(point)
        }
        let page = HTMLReport.page(Self.report(timeline: timeline))
        #expect(page.contains("<title>devsim: a &amp; b</title>"))
        #expect(page.contains("<td>&lt;b&gt;room&lt;/b&gt;</td>") && !page.contains("<b>room</b>"))
        #expect(page.contains("data-series=\"published\" data-points=\"3\""))
        #expect(page.contains("data-series=\"lateness p99\" data-points=\"3\""))
        // Nothing was acknowledged: no latency chart.
        #expect(!page.contains("data-series=\"latency p99\""))
        #expect(page.contains("<text class=\"mark\""), "the reload is marked")
        #expect(page.contains("started 2027-01-15T08:00:00Z"))
        #expect(page.contains("<tr data-verdict=\"passed\"><td>lateness.p99&lt;5ms</td>"))
        #expect(!page.contains("<table id=\"stages\">"), "no stages, no table")

        var staged = Self.report(timeline: timeline)
        staged.stages = [
            StageFigures(stage: 1, target: "20/s", plannedSeconds: 2, point: timeline.points[0].merged(with: timeline.points[1])),
            StageFigures(stage: 2, target: "x2", plannedSeconds: 2, point: timeline.points[2]),
        ]
        let withStages = HTMLReport.page(staged)
        #expect(withStages.contains("<tr data-stage=\"1\"><td>1</td><td>20/s</td><td>0</td><td>2</td><td>20</td>"))
        #expect(withStages.contains(">stage 2: x2</text>"))
    }

    /// Issue 38, item 11: what the broker refused, group by group and reason by reason, or the
    /// run's for a report written before groups had their own.
    @Test func refusalsAreShownByGroupAndReason() throws {
        var report = Self.report(timeline: nil)
        #expect(!HTMLReport.page(report).contains("Refused by the broker"), "nothing refused, no table")
        var refusals = Refusals()
        refusals.add(0x87, 5, reason: "Not authorized")
        refusals.add(0x97, 2, reason: "Quota exceeded")
        report[.refused] = 7
        report.groups[0].figures[.refused] = 7
        report.groups[0].refusals = refusals
        report.refusals = refusals
        let page = HTMLReport.page(report)
        #expect(page.contains("<div class=\"figure\" data-figure=\"refused\">refused by the broker<b>7</b></div>"))
        #expect(
            page.contains(
                "<tr data-group=\"&lt;b&gt;room&lt;/b&gt;\" data-code=\"0x87\"><td>&lt;b&gt;room&lt;/b&gt;</td><td>0x87</td>"
                    + "<td>Not authorized</td><td>5</td></tr><tr data-group=\"&lt;b&gt;room&lt;/b&gt;\" data-code=\"0x97\">"
                    + "<td>&lt;b&gt;room&lt;/b&gt;</td><td>0x97</td><td>Quota exceeded</td><td>2</td></tr>"), "\(page)")
        // An older report: the run's refusals, the groups without theirs.
        report.groups[0].refusals = nil
        let older = try HTMLReport.page(JSONDecoder().decode(RunReport.self, from: report.json()))
        #expect(older.contains("<tr data-group=\"every group\" data-code=\"0x87\"><td>every group</td><td>0x87</td>"), "\(older)")
    }

    @Test func aReportWithoutATimelineSaysSo() {
        let page = HTMLReport.page(Self.report(timeline: nil))
        #expect(page.contains("No timeline: the run was made with --timeline-interval 0."))
        #expect(!page.contains("<svg"))
    }

    @Test(arguments: [(8.006, 5, 2.0), (200, 4, 50), (0.62, 4, 0.2), (3, 5, 1), (1000, 5, 200), (0, 4, 1)] as [(Double, Int, Double)])
    func axisStepsAreRound(span: Double, count: Int, step: Double) {
        #expect(SVGChart.step(covering: span, in: count) == step)
    }
}
