/// Where a chart's mark labels go: in lanes of a band above the plot, each label beside its
/// line (to its left near the right edge, so none is cut), and in the first lane where it
/// overlaps no other. When the full labels need more than `maximumLanes`, the short ones are
/// tried (`4000/s` for `step 4: 4000/s`); a label that still finds no room is left out, its line
/// keeping it as a tooltip. Widths are estimated, since the page is laid out where no font is
/// at hand: generously, as wide as DejaVu Sans's digits, the widest of the usual fonts'.
struct MarkLabels {
    struct Placed: Equatable {
        /// Where the text is anchored: its start, or with `endsAtLine` its end.
        var x: Double
        var lane: Int
        var text: String
        var endsAtLine: Bool
    }

    /// One per mark, in the marks' order; `nil` for a label left out.
    private(set) var placed: [Placed?] = []
    private(set) var lanes = 0

    static let maximumLanes = 4
    // An 11 px label's box is about 13 tall; what is left over keeps lanes apart at any scale.
    static let laneHeight = 15.0
    /// The estimated width of a character of the 11 px labels.
    static let characterWidth = 7.0
    /// Between two labels of a lane, and between a label and its line.
    private static let gap = 6.0, offset = 3.0
    /// What a label keeps clear of the chart's edges.
    private static let margin = 2.0

    /// The band's height above the plot: none without marks.
    var bandHeight: Double { lanes == 0 ? 0 : Double(lanes) * Self.laneHeight + 3 }

    /// A label's baseline in lane `lane`, from the band's top.
    static func baseline(lane: Int) -> Double { Double(lane + 1) * laneHeight - 3 }

    /// `marks`' lines at `x` (in the chart's 640-wide coordinates), their labels and short labels.
    init(_ marks: [(x: Double, label: String, short: String?)]) {
        if let full = Self.place(marks.map { ($0.x, $0.label) }, leavingOut: false) {
            (placed, lanes) = full
        } else {
            (placed, lanes) = Self.place(marks.map { ($0.x, $0.short ?? $0.label) }, leavingOut: true)!
        }
    }

    /// Every label placed, or `nil` when one found no room; with `leavingOut`, those without
    /// room are left out instead.
    private static func place(_ marks: [(x: Double, text: String)], leavingOut: Bool) -> ([Placed?], Int)? {
        var placed = [Placed?](repeating: nil, count: marks.count)
        // The rightmost end of what each lane holds.
        var ends: [Double] = []
        for index in marks.indices.sorted(by: { marks[$0].x < marks[$1].x }) {
            let (x, text) = marks[index]
            let width = Double(text.count) * characterWidth
            let endsAtLine = x + offset + width > SVGChart.width - margin
            let start = endsAtLine ? max(margin, x - offset - width) : x + offset
            guard let lane = ends.firstIndex(where: { $0 + gap <= start }) ?? (ends.count < maximumLanes ? ends.count : nil) else {
                if leavingOut { continue }
                return nil
            }
            if lane == ends.count { ends.append(0) }
            ends[lane] = start + width
            placed[index] = Placed(x: endsAtLine ? start + width : start, lane: lane, text: text, endsAtLine: endsAtLine)
        }
        return (placed, ends.count)
    }
}
