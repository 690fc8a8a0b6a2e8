import Foundation
import Testing
import TestSupport

@testable import Report
@testable import Simulator

/// Issue 25, item 3: the HTML report as Chromium lays it out. A script added to a copy of the
/// page (the report itself has none) measures the charts' mark labels and reads the tiles
/// after layout, and leaves what it found in the DOM that `--dump-dom` prints.
@Suite(.tags(.integration), .notUnitOnly) struct HTMLReportBrowserTests {
    struct Layout: Decodable {
        struct Box: Decodable {
            var text: String?
            var left, right, top, bottom: Double
            func overlaps(_ other: Box) -> Bool {
                left < other.right && other.left < right && top < other.bottom && other.top < bottom
            }
            func holds(_ other: Box) -> Bool {
                other.left >= left - 0.5 && other.right <= right + 0.5 && other.top >= top - 0.5 && other.bottom <= bottom + 0.5
            }
        }
        struct Chart: Decodable {
            var title: String
            var box: Box
            var labels: [Box]
        }
        struct Tile: Decodable {
            var key: String
            var words: String
            var value: String
        }
        var charts: [Chart]
        var tiles: [Tile]

        func tile(_ key: String) -> Tile? { tiles.first { $0.key == key } }
    }

    private static let measure = """
        <script>
        const box = (e) => { const r = e.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
        const layout = {
          charts: [...document.querySelectorAll('svg')].map(svg => ({
            title: svg.getAttribute('aria-label'), box: box(svg),
            labels: [...svg.querySelectorAll('text.mark')].map(t => Object.assign({text: t.textContent}, box(t))) })),
          tiles: [...document.querySelectorAll('.figure')].map(f => ({
            key: f.dataset.figure || '', words: f.firstChild ? f.firstChild.textContent : '', value: f.querySelector('b').textContent })),
        };
        const pre = document.createElement('pre');
        pre.id = 'layout';
        pre.textContent = JSON.stringify(layout);
        document.body.appendChild(pre);
        </script>
        """

    /// `page` laid out by headless Chromium at `width` pixels, as the script above measured it.
    private static func layout(of page: String, width: Int) throws -> Layout {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("devsim-html-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("report.html")
        try page.replacingOccurrences(of: "</body>", with: measure + "</body>").write(to: file, atomically: true, encoding: .utf8)
        let browser = try DevsimProcess.runToCompletion(
            executable: "/usr/bin/chromium",
            args: [
                "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0", "--window-size=\(width),1000",
                "--dump-dom", file.absoluteString,
            ],
            timeout: 60)
        #expect(browser.status == 0, "\(browser.stderr.suffix(2000))")
        let console = browser.stderr.split(separator: "\n").filter { $0.contains("CONSOLE") || $0.contains("Uncaught") }
        #expect(console.isEmpty, "the page logs nothing: \(console)")
        let dump = browser.stdout
        let start = try #require(dump.range(of: "<pre id=\"layout\">"), "\(dump.suffix(1000))")
        let end = try #require(dump[start.upperBound...].range(of: "</pre>"))
        let json = dump[start.upperBound..<end.lowerBound]
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
        return try JSONDecoder().decode(Layout.self, from: Data(json.utf8))
    }

    /// Every chart's mark labels inside the chart, and none over another.
    private static func expectLabelsApartAndInside(_ layout: Layout) {
        for chart in layout.charts {
            for label in chart.labels {
                #expect(chart.box.holds(label), "\(chart.title): '\(label.text ?? "")' is cut: \(label) outside \(chart.box)")
            }
            for (index, label) in chart.labels.enumerated() {
                for other in chart.labels[(index + 1)...] where label.overlaps(other) {
                    Issue.record("\(chart.title): '\(label.text ?? "")' \(label) overlaps '\(other.text ?? "")' \(other)")
                }
            }
        }
    }

    private static func point(at: Double, seconds: Double, published: Int, latencyMs: UInt64, errors: Int = 0) -> Timeline.Point {
        var point = Timeline.Point(at: at, seconds: seconds)
        point.scheduled = published
        point.published = published
        point.acknowledged = published
        point.connectionsUp = 50
        point.errors = errors
        var latency = Histogram(), lateness = Histogram()
        for _ in 0..<10 {
            latency.record(latencyMs * 1_000_000)
            lateness.record(1_000_000)
        }
        point.latency = SparseHistogram(latency)
        point.lateness = SparseHistogram(lateness)
        return point
    }

    /// A capacity search of 14 steps over 100 s, the last a few seconds before the end: labels
    /// that, drawn in one row at their lines, run into each other and past the right edge.
    static func capacityReport() throws -> RunReport {
        var timeline = Timeline(intervalSeconds: 1, startedAt: 1_800_000_000)
        for second in 0..<100 { timeline.append(point(at: Double(second), seconds: 1, published: 1000 * (second / 7 + 1), latencyMs: 5)) }
        var totals = Totals()
        totals.figures[.scheduled] = 999_999
        totals.figures[.published] = 999_999
        var result = RunResult(
            totals: totals, connectionsUpAtEnd: 50, connections: 50, durationSeconds: 100, reason: .searched, latency: Histogram(),
            lateness: Histogram(), groups: [(name: "meter", totals: totals)], connectionErrors: ["connection lost: reset": 7],
            allConnectedSeconds: 0)
        result.timeline = timeline
        var capacity = CapacityFigures(slos: ["p99<50ms"], stepSeconds: 5, warmUpSeconds: 1, baseRatePerSecond: 1000)
        let targets: [Double] = [1000, 2000, 4000, 8000, 16000, 12000, 10000, 11000, 10500, 10750, 10625, 10687.5, 10656.25, 10671.88]
        for (index, target) in targets.enumerated() {
            let passed =
                target <= 10671.88 && target != 16000 && target != 12000 && target != 11000 && target != 10750
                && target != 10687.5
            let hold = point(
                at: index == 13 ? 96 : Double(index * 7 + 1), seconds: 5, published: Int(target * 5), latencyMs: passed ? 20 : 80,
                errors: index == 13 ? 0 : 3)
            let verdict = Verdict(
                assertion: "p99<50ms", passed: passed, actual: passed ? 20 : 80, message: passed ? "20 ms" : "80 ms (30 ms over)")
            capacity.steps.append(
                CapacityStep(
                    step: index + 1, multiplier: target / 1000, targetPerSecond: target, point: hold, verdicts: [verdict],
                    brokenFirst: passed ? nil : "p99<50ms"))
        }
        result.capacity = capacity
        return RunReport(result: result, scenarios: ["broker-load"], seed: 1)
    }

    /// A run under stages: a ramp, a pause (`rate: 0/s`), and a reconnect storm of 200
    /// connections asked for (`disconnect: all`), with a reload beside the storm's mark.
    static func stagedReport() throws -> RunReport {
        var timeline = Timeline(intervalSeconds: 1, startedAt: 1_800_000_000)
        for second in 0..<40 { timeline.append(point(at: Double(second), seconds: 1, published: 200, latencyMs: 5)) }
        var result = RunResult(
            totals: Totals(), connectionsUpAtEnd: 200, connections: 200, durationSeconds: 40, reason: .duration, latency: Histogram(),
            lateness: Histogram(), groups: [], connectionErrors: [:], allConnectedSeconds: 0)
        result.timeline = timeline
        result.reloads = [Reload(atSeconds: 30.5)]
        var storm = StageFigures(stage: 4, target: "hold", plannedSeconds: 10, point: timeline.points[30])
        storm.recovery = StageRecovery(dropped: 200, back: (0..<200).map { Double($0) / 100 })
        result.stages = [
            StageFigures(stage: 1, target: "20/s", plannedSeconds: 10, point: timeline.points[0]),
            StageFigures(stage: 2, target: "x2", plannedSeconds: 10, point: timeline.points[10]),
            StageFigures(stage: 3, target: "0/s", plannedSeconds: 10, point: timeline.points[20]), storm,
        ]
        return RunReport(result: result, scenarios: ["storm"], seed: 1)
    }

    @Test(arguments: [1280, 700])
    func capacityLabelsAreApartAndInsideAndTheTilesGiveTheAnswer(width: Int) throws {
        let layout = try Self.layout(of: HTMLReport.page(try Self.capacityReport()), width: width)
        try #require(!layout.charts.isEmpty)
        Self.expectLabelsApartAndInside(layout)
        // Every step is labelled, in full or by its target alone.
        let labels = layout.charts[0].labels.compactMap(\.text)
        #expect(labels.count == 14, "\(labels)")
        #expect(labels.contains { $0.hasSuffix("10671.88/s") }, "the last step, near the right edge: \(labels)")

        #expect(layout.tile("capacity")?.value == "10671.88/s", "\(layout.tiles)")
        #expect(layout.tile("broke-at")?.value == "10687.5/s")
        #expect(layout.tile("broken-first")?.value == "p99<50ms: 80 ms (30 ms over)")
        // The figures of the step at capacity, over its hold alone: not the run's totals.
        #expect(layout.tile("step-rate")?.words == "step 14 (10671.88/s): published / s")
        #expect(layout.tile("step-rate")?.value == "10671.8", "the step's 53359 in 5 s")
        #expect(layout.tile("step-latency")?.value.hasPrefix("20") == true, "\(layout.tiles)")
        #expect(layout.tile("step-errors")?.value == "0")
        #expect(layout.tile("steps")?.value == "14")
        #expect(layout.tile("published") == nil && layout.tile("errors") == nil, "no run totals: \(layout.tiles)")
    }

    @Test func stageLabelsAreApartAndADeliberateStormIsNoError() throws {
        let layout = try Self.layout(of: HTMLReport.page(try Self.stagedReport()), width: 1280)
        Self.expectLabelsApartAndInside(layout)
        let labels = layout.charts[0].labels.compactMap(\.text)
        #expect(labels.contains("stage 3: 0/s") && labels.contains("reload"), "\(labels)")
        #expect(layout.tile("errors")?.value == "0", "\(layout.tiles)")
        #expect(layout.tile("dropped-on-purpose")?.value == "200", "\(layout.tiles)")
        #expect(layout.tile("dropped-on-purpose")?.words == "dropped on purpose (disconnect: all)")
    }
}
