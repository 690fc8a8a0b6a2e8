import Foundation
import Report
import Simulator
import Testing
import TestSupport

/// The report's timeline from a real run: its points add up to the report's totals, and the CSV
/// says the same, as `--report-format csv` and as `report csv`.
@Suite(.tags(.integration), .notUnitOnly) struct TimelineReportTests {
    private static let scenario = """
        name: timeline
        devices:
          - name: meter
            count: 20
            topic: "meters/{id}"
            publish: 20/s
            qos: 1
            payload: { fields: { n: { counter: 0 } } }
        """

    @Test func thePointsAddUpToTheReportAndTheCSVSaysTheSame() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario("timeline.yaml", Self.scenario)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(
            file, port: broker.port, ["--duration", "3s", "--quiet", "--timeline-interval", "500ms"], report: true, statsInterval: nil,
            timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report(as: RunReport.self)
        let timeline = try #require(report.timeline)
        #expect(timeline.intervalSeconds == 0.5)
        // 3 s in half seconds, and the last part with the drain.
        #expect((6...7).contains(timeline.points.count), "\(timeline.points.map(\.at))")
        #expect(abs(timeline.startedAt - Date().timeIntervalSince1970) < 60)
        for (figure, path) in [(Figure.scheduled, \Timeline.Point.scheduled), (.published, \.published), (.acknowledged, \.acknowledged)] {
            #expect(timeline.points.reduce(0) { $0 + $1[keyPath: path] } == report[figure], "\(figure)")
        }
        var lateness = Histogram(), latency = Histogram()
        for point in timeline.points {
            lateness.merge(point.lateness.histogram)
            latency.merge(point.latency.histogram)
        }
        #expect(Percentiles(lateness) == report.lateness)
        #expect(Percentiles(latency) == report.latency)
        #expect(timeline.points.last?.connectionsUp == 20)
        #expect(timeline.points.dropFirst().dropLast().allSatisfy { $0.connectionsUp == 20 && $0.published > 0 })

        // `report csv` and `--report-format csv` write the same columns, read by Python's csv.
        let converted = try DevsimProcess.runToCompletion(args: ["report", "csv", file + ".json"], timeout: 30)
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(converted.stdout == timeline.csv)
        let direct = try DevsimRun(
            file, port: broker.port, ["--duration", "3s", "--quiet", "--report", file + ".csv", "--report-format", "csv"],
            statsInterval: nil, timeout: 60)
        #expect(direct.status == 0, "\(direct.stderr)")
        let check = try DevsimProcess.runToCompletion(
            executable: "python3",
            args: [
                "-c",
                """
                import csv, sys
                rows = list(csv.DictReader(open(sys.argv[1], newline="")))
                print(",".join(rows[0].keys()))
                print(len(rows), sum(int(r["published"]) for r in rows), min(int(r["connections_up"]) for r in rows[1:-1]))
                """,
                file + ".csv",
            ], timeout: 30)
        #expect(check.status == 0, "\(check.stderr)")
        let lines = check.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == Timeline.csvColumns.joined(separator: ","))
        let figures = lines.last?.split(separator: " ").compactMap { Int($0) } ?? []
        #expect(figures.count == 3 && (3...4).contains(figures[0]) && figures[1] > 0 && figures[2] == 20, "\(check.stdout)")
    }

    /// The page as a person sees it: rendered by Chromium, with nothing in its console, and a
    /// chart point per point of the timeline.
    @Test func theHTMLReportRendersInChromiumWithAPointPerInterval() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario("timeline.yaml", Self.scenario)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(
            file, port: broker.port, ["--duration", "3s", "--quiet", "--expect", "p99<1s", "--expect", "lateness.p99<1us"], report: true,
            statsInterval: nil, timeout: 60)
        #expect(result.status == 4, "one expectation fails: \(result.stderr)")
        let report = try result.report(as: RunReport.self)
        let timeline = try #require(report.timeline)
        let converted = try DevsimProcess.runToCompletion(
            args: ["report", "html", file + ".json", "--output", file + ".html"], timeout: 30)
        #expect(converted.status == 0, "\(converted.stderr)")
        let page = try String(contentsOfFile: file + ".html", encoding: .utf8)
        #expect(!page.contains("http://") && !page.contains("https://") && !page.contains("<script"), "nothing from elsewhere, no script")
        let browser = try DevsimProcess.runToCompletion(
            executable: "/usr/bin/chromium",
            args: [
                "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0", "--dump-dom", "file://" + file + ".html",
            ],
            timeout: 60)
        #expect(browser.status == 0, "\(browser.stderr.suffix(2000))")
        let console = browser.stderr.split(separator: "\n").filter { $0.contains("CONSOLE") || $0.contains("Uncaught") }
        #expect(console.isEmpty, "the page logs nothing: \(console)")
        func points(of series: String) -> Int? {
            guard let range = browser.stdout.firstRange(of: "data-series=\"\(series)\" data-points=\"") else { return nil }
            return Int(browser.stdout[range.upperBound...].prefix { $0.isNumber })
        }
        for series in ["scheduled", "published", "acknowledged", "lateness p50", "lateness p99", "connections up"] {
            #expect(points(of: series) == timeline.points.count, "\(series)")
        }
        #expect(points(of: "latency p99") == timeline.points.count { !$0.latency.isEmpty })
        #expect(browser.stdout.contains("<tr data-group=\"meter\">"))
        #expect(browser.stdout.contains("<tr data-verdict=\"passed\"><td>p99&lt;1s</td>"))
        #expect(browser.stdout.contains("<tr data-verdict=\"failed\"><td>lateness.p99&lt;1us</td>"))

        // Written by the run itself, the same page.
        let direct = try DevsimRun(
            file, port: broker.port, ["--duration", "3s", "--quiet", "--report", file + ".direct.html", "--report-format", "html"],
            statsInterval: nil, timeout: 60)
        #expect(direct.status == 0, "\(direct.stderr)")
        let written = try String(contentsOfFile: file + ".direct.html", encoding: .utf8)
        #expect(written.hasPrefix("<!doctype html>") && written.contains("data-series=\"published\""))
    }

    @Test func withoutATimelineThereIsNoCSVToWrite() throws {
        let file = try RunFiles.scenario("timeline.yaml", Self.scenario)
        defer { RunFiles.removeFolder(of: file) }
        let refused = try DevsimProcess.runToCompletion(
            args: ["run", file, "--report", file + ".csv", "--report-format", "csv", "--timeline-interval", "0"], timeout: 30)
        #expect(refused.status == 2)
        #expect(
            refused.stderr.contains("--report \(file).csv is the timeline as CSV, which --timeline-interval 0 turns off"),
            "\(refused.stderr)")
        let tooFine = try DevsimProcess.runToCompletion(args: ["run", file, "--timeline-interval", "1ms"], timeout: 30)
        #expect(tooFine.status == 2)
        #expect(tooFine.stderr.contains("--timeline-interval: expected 0 or at least 10ms, found '1ms'"), "\(tooFine.stderr)")
        try "{}".write(toFile: file + ".json", atomically: true, encoding: .utf8)
        let notAReport = try DevsimProcess.runToCompletion(args: ["report", "csv", file + ".json"], timeout: 30)
        #expect(notAReport.status == 2)
        #expect(notAReport.stderr.contains("is not a devsim JSON report"), "\(notAReport.stderr)")
        let two = try DevsimProcess.runToCompletion(args: ["report", "csv", "a.json", "b.json"], timeout: 30)
        #expect(two.status == 2)
        #expect(two.stderr.contains("report csv: name one report file, found 2"), "\(two.stderr)")
    }
}
