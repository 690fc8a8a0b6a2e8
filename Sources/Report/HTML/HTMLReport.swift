import FoundationEssentials

/// `--report-format html` and `devsim report html`: the report as one self-contained page to
/// look at. The run's figures, its timeline as charts (the published rate against the
/// schedule, latency and lateness percentiles, connections up, with reloads marked), the
/// device groups' table and what the broker refused each by reason, the subscriber groups'
/// when there are any, the `--expect` verdicts and a capacity search's answer and steps;
/// nothing loaded from elsewhere.
public enum HTMLReport {
    public static func page(_ report: RunReport) -> String {
        let title = "devsim: " + report.scenarios.joined(separator: ", ")
        var body = "<h1>\(HTMLText.escape(title))</h1>\n"
        body += "<p class=\"run\">\(HTMLText.escape(runLine(report)))</p>\n"
        body += figures(report)
        body += verdicts(report)
        body += capacity(report)
        body += charts(report)
        body += stages(report)
        body += groups(report)
        body += subscribers(report)
        body += hosts(report)
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(HTMLText.escape(title))</title>
            <style>\(style)</style>
            </head>
            <body>
            \(body)</body>
            </html>

            """
    }

    private static let style = """
        body { font: 14px system-ui, sans-serif; margin: 1.5em; color: #222; background: #fafafa; max-width: 1400px; }
        h1 { font-size: 1.3em; margin: 0 0 .3em; } h2 { font-size: 1.05em; margin: 1.2em 0 .4em; }
        .run { color: #555; margin: 0 0 1em; }
        .figures { display: flex; gap: 2em; flex-wrap: wrap; }
        .figure b { display: block; font-size: 1.5em; }
        .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 1em; }
        figure { margin: 0; background: #fff; border: 1px solid #ddd; padding: .5em; }
        figcaption { font-weight: 600; margin-bottom: .3em; } figcaption span { font-weight: normal; margin-left: .6em; }
        svg { width: 100%; height: auto; display: block; }
        svg .grid { stroke: #eee; } svg .axis { font-size: 11px; fill: #777; }
        svg line.mark { stroke: #c60; stroke-dasharray: 4 3; } svg text.mark { font-size: 11px; fill: #c60; }
        table { border-collapse: collapse; background: #fff; }
        th, td { border: 1px solid #ddd; padding: .3em .6em; text-align: right; }
        th:first-child, td:first-child { text-align: left; }
        .passed { color: #070; } .failed { color: #b00; font-weight: 600; }
        """

    private static func runLine(_ report: RunReport) -> String {
        var parts = [
            "outcome \(report.outcome)", "\(format(report.durationSeconds)) s", "seed \(report.seed)",
            "\(report.connections) connections",
        ]
        if let startedAt = report.timeline?.startedAt {
            parts.insert("started " + Date(timeIntervalSince1970: startedAt).formatted(.iso8601), at: 0)
        }
        if let shard = report.shard { parts.append("shard \(shard.index)/\(shard.count)") }
        return parts.joined(separator: " · ")
    }

    /// The headline tiles, each `<div class="figure" data-figure="KEY">`: the run's figures, or
    /// for a capacity search its answer and the figures of the step that gave it, since the
    /// run's totals mix every step, warm-up and cool-down and answer nothing.
    private static func figures(_ report: RunReport) -> String {
        let tiles = report.capacity.map { capacityTiles($0, report) } ?? runTiles(report)
        return "<div class=\"figures\">"
            + tiles.map {
                "<div class=\"figure\" data-figure=\"\($0.key)\">\(HTMLText.escape($0.words))<b>\(HTMLText.escape($0.value))</b></div>"
            }
            .joined() + "</div>\n"
    }

    private typealias Tile = (key: String, words: String, value: String)

    private static func runTiles(_ report: RunReport) -> [Tile] {
        var tiles: [Tile] = [
            ("published", "published", "\(report[.published])"), ("scheduled", "of scheduled", "\(report[.scheduled])"),
            ("rate", "messages / s", format(report.ratePerSecond)),
            ("connections", "connections up at the end", "\(report.connectionsUp)/\(report.connections)"),
            ("lateness", "lateness p99", "\(format(report.lateness.p99)) ms"),
        ]
        if let latency = report.latency { tiles.append(("latency", "ack latency p99", "\(format(latency.p99)) ms")) }
        if let connect = report.connectTimings?[.connect] { tiles.append(("connect", "connect p99", "\(format(connect.p99)) ms")) }
        if let acked = report.ackedPercent { tiles.append(("acked", "acknowledged", "\(format(acked)) %")) }
        if report[.refused] > 0 { tiles.append(("refused", "refused by the broker", "\(report[.refused])")) }
        if let verify = report.verify { tiles.append(("lost", "lost (verify)", "\(verify.lost)")) }
        tiles.append(("errors", "errors", "\(report.connectionErrors.values.reduce(0, +) + report[.failed])"))
        // A reconnect storm asked for is no error: its drops are told apart.
        if let dropped = report.droppedOnPurpose {
            tiles.append(("dropped-on-purpose", "dropped on purpose (disconnect: all)", "\(dropped)"))
        }
        return tiles
    }

    /// The answer, what broke it, and the figures of the step at capacity (or, when none met
    /// every SLO, of the step that broke), over its hold alone.
    private static func capacityTiles(_ capacity: CapacityFigures, _ report: RunReport) -> [Tile] {
        var tiles: [Tile] = [
            ("capacity", "capacity: met every SLO", capacity.capacity.map { "\(format($0.targetPerSecond))/s" } ?? "none")
        ]
        if let broke = capacity.brokeAt {
            tiles.append(("broke-at", "broke at", "\(format(broke.targetPerSecond))/s"))
            if let first = capacity.brokenFirst { tiles.append(("broken-first", "broke first", "\(first.assertion): \(first.message)")) }
            // Every step that broke, counted: one step's limiter is not the search's.
            if let limitedBy = capacity.limitedBy { tiles.append(("limited-by", "limited by", limitedBy)) }
        }
        if capacity.sureness != nil { tiles.append(("sure", "held again", capacity.isSure ? "sure" : "unsure")) }
        if let step = capacity.capacity ?? capacity.brokeAt {
            let point = step.point
            let name = "step \(step.step) (\(format(step.targetPerSecond))/s)"
            tiles.append(("step-rate", "\(name): published / s", format(step.ratePerSecond)))
            let latency = milliseconds(point.latency.histogram, 99)
            if !latency.isEmpty { tiles.append(("step-latency", "\(name): ack latency p99", latency + " ms")) }
            let lateness = milliseconds(point.lateness.histogram, 99)
            if !lateness.isEmpty { tiles.append(("step-lateness", "\(name): lateness p99", lateness + " ms")) }
            tiles.append(("step-errors", "\(name): errors", "\(point.errors)"))
        }
        tiles.append(("steps", "steps held", "\(capacity.steps.count)"))
        tiles.append(("connections", "connections up at the end", "\(report.connectionsUp)/\(report.connections)"))
        return tiles
    }

    private static func verdicts(_ report: RunReport) -> String {
        guard let verdicts = report.expectations, !verdicts.isEmpty else { return "" }
        let rows = verdicts.map { verdict in
            "<tr data-verdict=\"\(verdict.passed ? "passed" : "failed")\"><td>\(HTMLText.escape(verdict.assertion))</td>"
                + "<td class=\"\(verdict.passed ? "passed" : "failed")\">\(verdict.passed ? "passed" : "FAILED")</td>"
                + "<td>\(HTMLText.escape(verdict.message))</td></tr>"
        }
        return "<h2>Expectations</h2>\n<table id=\"verdicts\"><thead><tr><th>assertion</th><th>verdict</th><th>measured</th></tr></thead>"
            + "<tbody>\(rows.joined())</tbody></table>\n"
    }

    private static func charts(_ report: RunReport) -> String {
        guard let timeline = report.timeline, !timeline.points.isEmpty else {
            return "<h2>Over time</h2>\n<p>No timeline: the run was made with --timeline-interval 0.</p>\n"
        }
        let points = timeline.points
        // Each point is drawn at its interval's end, as the figures over it are known then.
        let x = points.map { $0.at + $0.seconds }
        func perSecond(_ count: KeyPath<Timeline.Point, Int>) -> [Double?] {
            points.map { $0.seconds > 0 ? Double($0[keyPath: count]) / $0.seconds : nil }
        }
        func milliseconds(_ histogram: KeyPath<Timeline.Point, SparseHistogram>, _ p: Double) -> [Double?] {
            points.map { point in
                let values = point[keyPath: histogram].histogram
                return values.isEmpty ? nil : Double(values.percentile(p)) / 1e6
            }
        }
        let marks =
            (report.stages ?? []).map { SVGChart.Mark(at: $0.point.at, label: "stage \($0.stage): \($0.target)", short: $0.target) }
            + (report.reloads ?? []).map { SVGChart.Mark(at: $0.atSeconds, label: $0.error == nil ? "reload" : "reload failed") }
            + (report.capacity?.steps ?? []).map { step in
                let target = "\(format(step.targetPerSecond))/s"
                return SVGChart.Mark(at: step.point.at, label: "step \(step.step): \(target)", short: target)
            }
        var charts = [
            SVGChart(
                title: "Published against the schedule", unit: "messages / s", x: x,
                series: [
                    .init(name: "scheduled", colour: "#777", values: perSecond(\.scheduled), dashed: true),
                    .init(name: "published", colour: "#1f77b4", values: perSecond(\.published)),
                    .init(name: "acknowledged", colour: "#2ca02c", values: perSecond(\.acknowledged)),
                ], marks: marks),
            SVGChart(
                title: "Lateness", unit: "ms after the tick's deadline", x: x,
                series: [
                    .init(name: "lateness p50", colour: "#9467bd", values: milliseconds(\.lateness, 50)),
                    .init(name: "lateness p99", colour: "#d62728", values: milliseconds(\.lateness, 99)),
                ], marks: marks),
            SVGChart(
                title: "Connections up", unit: "at each interval's end", x: x,
                series: [.init(name: "connections up", colour: "#1f77b4", values: points.map { Double($0.connectionsUp) })],
                marks: marks),
        ]
        if report.subscribers != nil {
            charts.append(
                SVGChart(
                    title: "Received by the subscriber groups", unit: "messages / s", x: x,
                    series: [.init(name: "received", colour: "#ff7f0e", values: perSecond(\.received))], marks: marks))
        }
        if report.latency != nil {
            charts.insert(
                SVGChart(
                    title: "Acknowledgement latency", unit: "ms, QoS 1/2 publish to PUBACK/PUBCOMP", x: x,
                    series: [
                        .init(name: "latency p50", colour: "#ff7f0e", values: milliseconds(\.latency, 50)),
                        .init(name: "latency p99", colour: "#d62728", values: milliseconds(\.latency, 99)),
                    ], marks: marks), at: 1)
        }
        if points.contains(where: { $0.errors > 0 }) {
            charts.append(
                SVGChart(
                    title: "Errors", unit: "per interval", x: x,
                    series: [.init(name: "errors", colour: "#b00", values: points.map { Double($0.errors) })], marks: marks))
        }
        let note = "<p class=\"run\">\(points.count) points of \(format(timeline.intervalSeconds)) s.</p>\n"
        return "<h2>Over time</h2>\n" + note + "<div class=\"charts\">\n" + charts.map(\.svg).joined(separator: "\n") + "\n</div>\n"
    }

    private static func stages(_ report: RunReport) -> String {
        runStages(report) + report.groups.map(groupStages).joined()
    }

    /// A group's own stages: its counts over each, and its connections up at the end.
    private static func groupStages(_ group: GroupFigures) -> String {
        guard let stages = group.stages, !stages.isEmpty else { return "" }
        let rows = stages.map { stage in
            let point = stage.point
            return Row(
                " data-stage=\"\(stage.stage)\"", stageCells(stage.stage, stage.target, point) + ["\(point.connectionsUp)"])
        }
        let name = HTMLText.escape(group.name)
        return "<h2>Stages of device group \(name)</h2>\n"
            + table(
                "class=\"group-stages\" data-group=\"\(name)\"",
                ["stage", "target", "from s", "seconds", "scheduled", "published", "acknowledged", "connections up at the end"], rows)
    }

    private static func runStages(_ report: RunReport) -> String {
        guard let stages = report.stages, !stages.isEmpty else { return "" }
        let rows = stages.map { stage in
            let point = stage.point
            return Row(
                " data-stage=\"\(stage.stage)\"",
                stageCells(stage.stage, stage.target, point) + [
                    milliseconds(point.latency.histogram, 99),
                    milliseconds(point.lateness.histogram, 99), "\(point.errors)",
                    stage.recovery.map { recovery in
                        [recovery.p50Seconds, recovery.p90Seconds, recovery.allSeconds].map { $0.map(format) ?? "–" }
                            .joined(separator: " / ") + " (\(recovery.back) of \(recovery.dropped))"
                    } ?? "",
                ])
        }
        let columns = [
            "stage", "target", "from s", "seconds", "scheduled", "published", "acknowledged", "latency p99 ms", "lateness p99 ms",
            "errors", "back after s (50 / 90 / 100 %)",
        ]
        return "<h2>Stages</h2>\n" + table("id=\"stages\"", columns, rows)
    }

    /// `--find-capacity`: the answer in a sentence, and each step's target, figures and verdicts.
    private static func capacity(_ report: RunReport) -> String {
        guard let capacity = report.capacity else { return "" }
        var answer =
            capacity.capacity.map { "Capacity: \(format($0.targetPerSecond)) messages/s met every SLO (step \($0.step))." }
            ?? (capacity.steps.contains(where: \.passed)
                ? "No rate met every SLO each time it was held: \(capacity.disagreementsInWords())." : "No step met every SLO.")
        if let broke = capacity.brokeAt, let first = capacity.brokenFirst {
            answer += " \(format(broke.targetPerSecond))/s (step \(broke.step)) broke \(first.assertion) first: \(first.message)"
            answer += broke.limitedBy.map { ", limited by \($0)." } ?? "."
        }
        if let limitedBy = capacity.limitedBy, capacity.limiterCounts.map(\.steps).reduce(0, +) > 1 {
            answer += " The steps that broke were limited by \(limitedBy)."
        }
        // "Held again, sure: …", or "Unsure, the run ended before … was held again: …".
        if let sureness = capacity.sureness {
            answer +=
                capacity.boundary.allSatisfy { $0.holds > 1 }
                ? " Held again, \(sureness)." : " " + sureness.prefix(1).uppercased() + sureness.dropFirst() + "."
        }
        // With a `lost` SLO each step counted what it lost.
        let countsLoss = capacity.steps.contains { $0.loss != nil }
        let rows = capacity.steps.map { step in
            let broken = step.verdicts.filter { !$0.passed }.map { "\($0.assertion): \($0.message)" }.joined(separator: "; ")
            let limited = step.limiter.map { "; limited by \($0.rawValue)" } ?? ""
            let verdict = step.passed ? "met every SLO" : broken + limited
            let figures: [String] = [
                "\(step.step)", format(step.targetPerSecond), format(step.ratePerSecond),
                milliseconds(step.point.latency.histogram, 99), milliseconds(step.point.lateness.histogram, 99), "\(step.point.errors)",
            ]
            let headroom: [String] = [
                step.headroom.map { format($0.busiestLoopPercent) } ?? "", step.headroom?.machineCPUPercent.map(format) ?? "",
            ]
            let lost: [String] = countsLoss ? [step.loss.map { "\($0.lost)" } ?? ""] : []
            return Row(
                " data-step=\"\(step.step)\" class=\"\(step.passed ? "passed" : "failed")\"",
                figures + headroom + lost + [HTMLText.escape(verdict)])
        }
        let slos = capacity.slos.map(HTMLText.escape).joined(separator: ", ")
        let columns =
            ["step", "target / s", "published / s", "latency p99 ms", "lateness p99 ms", "errors", "devsim loop %", "machine CPU %"]
            + (countsLoss ? ["lost"] : []) + ["verdict"]
        return "<h2>Capacity</h2>\n<p class=\"answer\">\(HTMLText.escape(answer))</p>\n"
            + "<p class=\"run\">SLOs: \(slos); each step \(format(capacity.warmUpSeconds)) s of warm-up, then "
            + "\(format(capacity.stepSeconds)) s measured"
            + (countsLoss ? ", then up to \(format(CapacityFigures.arrivalLimit / .seconds(1))) s at its rate for its last messages" : "")
            + ".</p>\n"
            + table("id=\"capacity\"", columns, rows)
    }

    private static func groups(_ report: RunReport) -> String {
        let columns: [Figure] = [
            .scheduled, .published, .acknowledged, .refused, .inFlight, .skippedOffline, .droppedBuffer, .failed, .paused,
        ]
        let rows = report.groups.map { group in
            Row(" data-group=\"\(HTMLText.escape(group.name))\"", [HTMLText.escape(group.name)] + columns.map { "\(group[$0])" })
        }
        return "<h2>Device groups</h2>\n" + table("id=\"groups\"", ["group"] + columns.map(\.words), rows) + refusals(report)
    }

    /// What the broker refused each group (an ACL's "Not authorized"), reason by reason: what an
    /// ACL rehearsal or a comparison of brokers looks for. A report written before groups had
    /// their own gives the run's.
    private static func refusals(_ report: RunReport) -> String {
        let groups = report.groups.compactMap { group in group.refusals.map { (group.name, $0) } }
        let owners = groups.isEmpty ? report.refusals.map { [("every group", $0)] } ?? [] : groups
        let rows = owners.flatMap { name, refusals in
            refusals.byReason.map { refusal in
                Row(
                    " data-group=\"\(HTMLText.escape(name))\" data-code=\"\(refusal.code)\"",
                    [HTMLText.escape(name), refusal.code, HTMLText.escape(refusal.reason), "\(refusal.count)"])
            }
        }
        guard !rows.isEmpty else { return "" }
        return "<h2>Refused by the broker</h2>\n" + table("id=\"refusals\"", ["group", "code", "reason", "refused"], rows)
    }

    private static func subscribers(_ report: RunReport) -> String {
        guard let groups = report.subscribers, !groups.isEmpty else { return "" }
        let rows = groups.map { group in
            Row(
                " data-subscriber-group=\"\(HTMLText.escape(group.name))\"",
                [
                    HTMLText.escape(group.name) + (group.shared ? " (shared)" : ""), "\(group.connections)", "\(group.subscribed)",
                    "\(group.received)", format(group.ratePerSecond), group.latency.map { format($0.p50) } ?? "",
                    group.latency.map { format($0.p99) } ?? "", "\(group.duplicates)", group.outOfOrder.map { "\($0)" } ?? "—",
                    "\(group.gaps)",
                ])
        }
        let columns = [
            "subscriber group", "connections", "subscribed", "received", "messages / s", "latency p50 ms", "latency p99 ms", "duplicates",
            "out of order", "gaps",
        ]
        return "<h2>Subscriber groups</h2>\n" + table("id=\"subscribers\"", columns, rows)
    }

    /// What a stage's row begins with, the scenario's or a group's: its number and target,
    /// when and how long, and its counts.
    private static func stageCells(_ stage: Int, _ target: String, _ point: Timeline.Point) -> [String] {
        [
            "\(stage)", HTMLText.escape(target), format(point.at), format(point.seconds), "\(point.scheduled)", "\(point.published)",
            "\(point.acknowledged)",
        ]
    }

    /// A table row: its attributes (` data-stage="2"`, with the space) and its cells, in HTML.
    struct Row {
        var attributes: String
        var cells: [String]

        init(_ attributes: String, _ cells: [String]) {
            self.attributes = attributes
            self.cells = cells
        }
    }

    /// `<table ATTRIBUTES>` with a header row of `columns` (plain text) and `rows`.
    static func table(_ attributes: String, _ columns: [String], _ rows: [Row]) -> String {
        "<table \(attributes)><thead><tr>" + columns.map { "<th>\(HTMLText.escape($0))</th>" }.joined() + "</tr></thead><tbody>"
            + rows.map { "<tr\($0.attributes)>" + $0.cells.map { "<td>\($0)</td>" }.joined() + "</tr>" }.joined() + "</tbody></table>\n"
    }

    /// A histogram's percentile `p` in milliseconds; empty for an empty histogram.
    private static func milliseconds(_ histogram: Histogram, _ p: Double) -> String {
        histogram.isEmpty ? "" : format(Double(histogram.percentile(p)) / 1e6)
    }

    /// A figure to at most three decimals, without trailing zeros.
    private static func format(_ value: Double) -> String {
        let rounded = value.thousandths
        return rounded == rounded.rounded() ? "\(Int(rounded))" : "\(rounded)"
    }
}
