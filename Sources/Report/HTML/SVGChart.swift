/// A line chart as inline SVG, drawn when the report is written: no script, no font or file
/// from elsewhere, so the page shows the same offline, in a mail, or in a CI artifact viewer.
///
/// Each series is one `<polyline data-series="NAME" data-points="N">` of its points with a
/// value; marks (reloads, stages, capacity steps) are vertical lines, labelled in a band above
/// the plot (`MarkLabels`), so no label hides a line or another label.
struct SVGChart {
    struct Series {
        var name: String
        var colour: String
        /// One value per x; `nil` where the series has none (nothing acknowledged).
        var values: [Double?]
        /// Drawn dashed: a reference the others are read against (the schedule).
        var dashed = false
    }

    struct Mark {
        var at: Double
        var label: String
        /// What the label shrinks to when the full ones do not fit (`4000/s` for `step 4: 4000/s`).
        var short: String? = nil
    }

    var title: String
    var unit: String
    /// Seconds from the run's start.
    var x: [Double]
    var series: [Series]
    var marks: [Mark] = []

    static let width = 640.0
    private static let height = 200.0
    static let left = 56.0, right = 12.0
    private static let top = 10.0, bottom = 26.0

    var svg: String {
        let plotWidth = Self.width - Self.left - Self.right
        // At least a second wide, so a run shorter than its first interval still has an axis.
        let xMax = max(x.last ?? 1, 1)
        func px(_ seconds: Double) -> Double { Self.left + seconds / xMax * plotWidth }
        let labels = MarkLabels(marks.map { (x: px($0.at), label: $0.label, short: $0.short) })
        // The labels' band above the plot, which the chart grows by.
        let top = Self.top + labels.bandHeight
        let height = Self.height + labels.bandHeight
        let plotHeight = height - top - Self.bottom
        let xStep = Self.step(covering: xMax, in: 5)
        // A tenth of headroom, so a flat line at the top is not drawn on the frame.
        let highest = (series.flatMap { $0.values.compactMap { $0 } }.max() ?? 0) * 1.1
        let yStep = Self.step(covering: highest, in: 4)
        let yMax = highest > 0 ? (highest / yStep).rounded(.up) * yStep : 1
        // Clamped to the axis: an interval's count can dip below 0 when messages a broker never
        // took are taken back from `published` (suspected QoS 2 trouble).
        func py(_ value: Double) -> Double { top + plotHeight - (yMax > 0 ? max(0, value) / yMax : 0) * plotHeight }
        var svg = """
            <svg viewBox="0 0 \(Self.number(Self.width)) \(Self.number(height))" role="img" aria-label="\(HTMLText.escape(title))">
            """
        for step in 0...Int((yMax / yStep).rounded()) {
            let value = yStep * Double(step), y = py(value)
            svg += "<line class=\"grid\" x1=\"\(Self.number(Self.left))\" x2=\"\(Self.number(Self.width - Self.right))\" "
            svg += "y1=\"\(Self.number(y))\" y2=\"\(Self.number(y))\"/>"
            svg += "<text class=\"axis\" x=\"\(Self.number(Self.left - 4))\" y=\"\(Self.number(y + 4))\" text-anchor=\"end\">"
            svg += "\(Self.label(value))</text>"
        }
        for step in 0...Int((xMax / xStep).rounded(.down)) {
            let seconds = xStep * Double(step)
            svg += "<text class=\"axis\" x=\"\(Self.number(px(seconds)))\" y=\"\(Self.number(height - 8))\" text-anchor=\"middle\">"
            svg += "\(Self.label(seconds)) s</text>"
        }
        for (mark, placed) in zip(marks, labels.placed) {
            let x = Self.number(px(mark.at))
            svg += "<g><title>\(HTMLText.escape(mark.label))</title>"
            svg += "<line class=\"mark\" x1=\"\(x)\" x2=\"\(x)\" y1=\"\(Self.number(top))\" y2=\"\(Self.number(top + plotHeight))\"/>"
            if let placed {
                let y = Self.top + MarkLabels.baseline(lane: placed.lane)
                svg += "<text class=\"mark\" x=\"\(Self.number(placed.x))\" y=\"\(Self.number(y))\""
                svg += placed.endsAtLine ? " text-anchor=\"end\">" : ">"
                svg += "\(HTMLText.escape(placed.text))</text>"
            }
            svg += "</g>"
        }
        for line in series {
            let points = zip(x, line.values).compactMap { x, value in value.map { "\(Self.number(px(x))),\(Self.number(py($0)))" } }
            svg += "<polyline data-series=\"\(HTMLText.escape(line.name))\" data-points=\"\(points.count)\" fill=\"none\" "
            svg += "stroke=\"\(line.colour)\" stroke-width=\"1.5\"\(line.dashed ? " stroke-dasharray=\"5 3\"" : "") "
            svg += "points=\"\(points.joined(separator: " "))\"/>"
            // One point draws no line: a dot shows it.
            if points.count == 1, let only = points.first?.split(separator: ",") {
                svg += "<circle cx=\"\(only[0])\" cy=\"\(only[1])\" r=\"2.5\" fill=\"\(line.colour)\"/>"
            }
        }
        svg += "</svg>"
        let legend = series.map { "<span style=\"color:\($0.colour)\">━ \(HTMLText.escape($0.name))</span>" }.joined(separator: " ")
        return
            "<figure><figcaption>\(HTMLText.escape(title)) <small>(\(HTMLText.escape(unit)))</small> \(legend)</figcaption>\(svg)</figure>"
    }

    /// A round step (1, 2, 2.5 or 5 times a power of ten) of which at most `count` cover
    /// `span`: the axis's ticks.
    static func step(covering span: Double, in count: Int) -> Double {
        guard span > 0, span.isFinite else { return 1 }
        let rough = span / Double(count)
        var power = 1.0
        while power * 10 <= rough { power *= 10 }
        while power > rough { power /= 10 }
        for factor in [1.0, 2, 2.5, 5, 10] where factor * power >= rough { return factor * power }
        return 10 * power
    }

    /// Coordinates to a tenth of a pixel.
    private static func number(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(abs(tenths % 10))"
    }

    /// An axis value as a person reads it: `1500`, `2.5`, `0.25`.
    private static func label(_ value: Double) -> String {
        if value == value.rounded() { return "\(Int(value))" }
        let text = "\(value.thousandths)"
        return text
    }
}
