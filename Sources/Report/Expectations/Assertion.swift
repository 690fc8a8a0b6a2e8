import FoundationEssentials
import Scenario

/// One `--expect` assertion about the run report, such as `rate>=99.5%`, `p99<50ms` or `failed==0`:
/// a figure (see ``ReportMetrics``), a comparison and a limit with the unit the figure needs
/// (`%` for percentages, `ms`, `s` or `us` for durations, none for counts).
public struct Assertion: Sendable, Equatable, CustomStringConvertible {
    package enum Comparison: String, Sendable, CaseIterable {
        case less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">=", equal = "==", notEqual = "!="

        package func holds(_ actual: Double, _ limit: Double) -> Bool {
            switch self {
            case .less: actual < limit
            case .lessOrEqual: actual <= limit
            case .greater: actual > limit
            case .greaterOrEqual: actual >= limit
            case .equal: actual == limit
            case .notEqual: actual != limit
            }
        }
    }

    public enum Unit: String, Sendable, CaseIterable {
        case percent = "%", milliseconds = "ms", seconds = "s", microseconds = "us", none = ""

        /// Milliseconds per unit, for durations; 1 for the others.
        var scale: Double {
            switch self {
            case .seconds: 1000
            case .microseconds: 0.001
            case .percent, .milliseconds, .none: 1
            }
        }
    }

    /// The assertion as given, without spaces: `rate>=99.5%`.
    public let text: String
    package let metric: Metric
    /// `stage[N].…`: judged on stage N's figures alone (1-based); `nil` for the whole run's.
    package let stage: Int?
    /// `subscribers[NAME].…`: a figure of that subscriber group; `nil` for the devices'.
    package let subscriberGroup: String?
    package let comparison: Comparison
    /// The limit in the metric's base unit (percent, milliseconds or a plain number).
    package let limit: Double
    /// The unit the assertion was written in; actual values are shown in it.
    public let unit: Unit

    public var description: String { text }

    public static func == (a: Assertion, b: Assertion) -> Bool {
        a.text == b.text && a.metric.name == b.metric.name && a.stage == b.stage && a.subscriberGroup == b.subscriberGroup
            && a.comparison == b.comparison && a.limit == b.limit && a.unit == b.unit
    }

    static let operatorCharacters: Set<Character> = ["<", ">", "=", "!"]
    static let comparisons = "<, <=, >, >=, == or !="

    /// Parses `FIGURE OP NUMBER[UNIT]`; spaces around the parts are allowed.
    public init(_ text: String) throws(AssertionError) {
        let trimmed = Text.trimmed(text)
        guard !trimmed.isEmpty else {
            throw AssertionError("empty assertion; expected FIGURE OP VALUE such as rate>=99.5%, p99<50ms or failed==0")
        }
        guard let opStart = trimmed.firstIndex(where: { Self.operatorCharacters.contains($0) }) else {
            throw AssertionError("no comparison; expected FIGURE OP VALUE such as rate>=99.5%, with OP one of \(Self.comparisons)")
        }
        let opEnd = trimmed[opStart...].firstIndex { !Self.operatorCharacters.contains($0) } ?? trimmed.endIndex
        let opText = String(trimmed[opStart..<opEnd])
        guard let comparison = Comparison(rawValue: opText) else {
            let hint =
                opText == "="
                ? "; use == to test equality" : opText == "=<" ? "; did you mean <=?" : opText == "=>" ? "; did you mean >=?" : ""
            throw AssertionError("unknown comparison '\(opText)'\(hint); expected one of \(Self.comparisons)")
        }
        var name = Text.trimmed(trimmed[..<opStart])
        let scope = name
        var stage: Int?
        if name.hasPrefix("stage[") {
            guard let close = name.firstIndex(of: "]"), let number = Int(name[name.index(name.startIndex, offsetBy: 6)..<close]),
                number >= 1,
                name[close...].hasPrefix("].")
            else {
                throw AssertionError("expected stage[N].FIGURE with N from 1, such as stage[2].lateness.p99<5ms, found '\(name)'")
            }
            stage = number
            name = Text.trimmed(name[name.index(close, offsetBy: 2)...])
        }
        var subscriberGroup: String?
        if name.hasPrefix("subscribers[") {
            let open = name.index(name.startIndex, offsetBy: 12)
            guard let close = name[open...].firstRange(of: "]."), close.lowerBound > open else {
                throw AssertionError("expected subscribers[NAME].FIGURE, such as subscribers[dashboards].gaps==0, found '\(name)'")
            }
            guard stage == nil else {
                throw AssertionError("a subscriber group's figures are the whole run's; leave out 'stage[\(stage!)].'")
            }
            subscriberGroup = String(name[open..<close.lowerBound])
            name = Text.trimmed(name[close.upperBound...])
        }
        guard !name.isEmpty else {
            throw AssertionError("no figure before '\(opText)'; expected FIGURE OP VALUE such as rate>=99.5%")
        }
        let found = subscriberGroup.map { ReportMetrics.subscriber(name, of: $0) } ?? ReportMetrics.named(name)
        guard var metric = found else {
            if subscriberGroup != nil {
                let names = ReportMetrics.subscriberFigureNames
                let hint = Suggestion.closest(to: name, among: names).map { " (did you mean \($0)?)" } ?? ""
                throw AssertionError(
                    "unknown figure '\(name)' of a subscriber group\(hint); its figures are \(names.joined(separator: ", "))")
            }
            let candidates = ReportMetrics.all.map(\.name) + ReportMetrics.aliases.keys.sorted()
            let hint = Suggestion.closest(to: name, among: candidates).map { " (did you mean \($0)?)" } ?? ""
            throw AssertionError("unknown figure '\(name)'\(hint); the figures are \(ReportMetrics.summary)")
        }
        let right = Text.trimmed(trimmed[opEnd...])
        let numberEnd = right.firstIndex { !($0.isASCII && ($0.isNumber || $0 == "." || $0 == "_")) } ?? right.endIndex
        let numberText = String(right[..<numberEnd])
        let digits = numberText.replacing("_", with: "")
        guard let first = digits.first, first.isNumber, digits.last?.isNumber == true,
            let value = Double(digits), value.isFinite
        else {
            let found = right.isEmpty ? "nothing" : "'\(right)'"
            throw AssertionError("expected a number after '\(opText)', found \(found)")
        }
        let unitText = Text.trimmed(right[numberEnd...])
        guard let unit = Unit(rawValue: unitText == "µs" ? "us" : unitText) else {
            throw AssertionError(
                "unknown unit '\(unitText)'; expected % (rate, acked, connected, lost), ms, s or us (durations), or none (counts)")
        }
        if metric.kind == Metric.Kind.number, unit == .percent, let share = metric.share {
            // A count as a share: `lost<=0.1%`.
            metric = Metric(metric.name, .percentage, needs: metric.needs, unavailable: metric.unavailable, value: share)
        }
        switch (metric.kind, unit) {
        case (.percentage, .percent), (.duration, .milliseconds), (.duration, .seconds), (.duration, .microseconds), (.number, .none):
            break
        case (.percentage, _):
            throw AssertionError("\(name) is a percentage; write it with %, such as \(name)\(opText)99.5%")
        case (.duration, .none):
            throw AssertionError("\(name) is a duration; give a unit, ms, s or us, such as \(name)\(opText)50ms")
        case (.duration, _):
            throw AssertionError(
                "\(name) is a duration; its unit is ms, s or us, not \(unitText) (% is for rate, acked, connected and lost)")
        case (.number, _):
            throw AssertionError("\(name) is a plain number and takes no unit, found '\(unitText)'")
        }
        if stage != nil, !ReportMetrics.perStage.contains(metric.name) {
            throw AssertionError(
                "\(name) is a figure of the whole run; per stage the figures are "
                    + ReportMetrics.perStage.sorted().joined(separator: ", "))
        }
        self.text = scope + opText + numberText + unitText
        self.stage = stage
        self.subscriberGroup = subscriberGroup
        self.metric = metric
        self.comparison = comparison
        self.limit = value * unit.scale
        self.unit = unit
    }

    /// Several assertions in one text, separated by commas, semicolons or new lines (how
    /// `DEVSIM_EXPECT` holds them).
    /// `parse` reads each: `Assertion.init`, or `Assertion.slo` for `--slo`.
    public static func list(
        _ text: String, parse: (String) throws(AssertionError) -> Assertion = { text throws(AssertionError) in try Assertion(text) }
    ) throws(AssertionError) -> [Assertion] {
        let parts = text.split(whereSeparator: { $0 == "," || $0 == ";" || $0 == "\n" })
            .map { Text.trimmed($0) }
            .filter { !$0.isEmpty }
        guard !parts.isEmpty else { return [try parse(text)] }
        var expectations: [Assertion] = []
        for part in parts {
            do {
                expectations.append(try parse(part))
            } catch  where parts.count > 1 {
                throw AssertionError("in '\(part)': \(error.message)")
            }
        }
        return expectations
    }

    /// An SLO of `run --find-capacity`: an assertion judged on each step's figures alone, so
    /// one of the figures a step has (`ReportMetrics.perStep`), without a stage of its own.
    public static func slo(_ text: String) throws(AssertionError) -> Assertion {
        let slo = try Assertion(text)
        guard slo.stage == nil else {
            throw AssertionError("an SLO is judged on every step of the search; leave out 'stage[\(slo.stage!)].'")
        }
        guard ReportMetrics.perStep.contains(slo.metric.name) else {
            throw AssertionError(
                "\(slo.metric.name) is a figure of the whole run; per step the figures are "
                    + ReportMetrics.perStep.sorted().joined(separator: ", "))
        }
        return slo
    }

    /// How far `actual` is past the limit, as a ratio above 1 (62 ms against <50ms: 1.24); 1
    /// or less when it is not past it, infinite for a figure that was not measured, so that of
    /// several broken SLOs the one broken furthest can be named.
    package func excess(_ actual: Double?) -> Double {
        guard let actual else { return .infinity }
        guard limit != 0, actual != 0 else { return actual == limit ? 1 : .infinity }
        switch comparison {
        case .less, .lessOrEqual: return actual / limit
        case .greater, .greaterOrEqual: return limit / actual
        case .equal, .notEqual: return max(actual / limit, limit / actual)
        }
    }

    /// The verdict on a span of the run alone (a step of a capacity search), with `loss`, what
    /// the span published and what of it arrived, for `lost`.
    package func evaluate(_ point: Timeline.Point, loss: StepLoss? = nil) -> Verdict {
        var report = RunReport.of(point)
        if let loss { report.verify = VerifySummary(received: loss.received, lost: loss.lost, duplicated: 0, outOfOrder: 0) }
        return evaluate(report)
    }

    /// The verdict on `report`: passed or not, the actual value, and by how much it missed.
    /// A figure the report does not have fails the assertion and says why.
    public func evaluate(_ report: RunReport) -> Verdict {
        var report = report
        if let stage {
            guard let figures = report.stages?.first(where: { $0.stage == stage }) else {
                let reached = report.stages?.count ?? 0
                return Verdict(
                    assertion: text, passed: false, actual: nil,
                    message: "not available: the run did not reach stage \(stage) (it ran \(Text.counted(reached, "stage")))")
            }
            report = report.ofStage(figures)
        }
        guard let actual = metric.value(report), actual.isFinite else {
            return Verdict(assertion: text, passed: false, actual: nil, message: metric.unavailable(report))
        }
        let passed = comparison.holds(actual, limit)
        var message = show(actual)
        if !passed { message += " (\(miss(actual)))" }
        return Verdict(assertion: text, passed: passed, actual: actual, message: message)
    }

    /// `97.12%`, `3.2 ms`, `0.25 s`, `1200 us`, `3`.
    func show(_ value: Double) -> String {
        Self.number(value / unit.scale) + suffix
    }

    private var suffix: String {
        switch unit {
        case .percent: "%"
        case .none: ""
        default: " " + unit.rawValue
        }
    }

    /// `2.38 points short`, `13.1 ms over`, `equal to the limit, must be above`.
    func miss(_ actual: Double) -> String {
        var distance = Self.number(abs(actual - limit) / unit.scale)
        if distance == "0" { distance = "<0.001" }
        switch unit {
        case .percent: distance += distance == "1" ? " point" : " points"
        case .none: break
        default: distance += " " + unit.rawValue
        }
        switch comparison {
        case .greater, .greaterOrEqual:
            return actual < limit ? "\(distance) short" : "equal to the limit, must be above"
        case .less, .lessOrEqual:
            return actual > limit ? "\(distance) over" : "equal to the limit, must be below"
        case .equal:
            return actual < limit ? "\(distance) short" : "\(distance) over"
        case .notEqual:
            return "equal to the limit"
        }
    }

    /// At most three decimals, trailing zeros dropped: `97.12`, `3`, `0.05`.
    package static func number(_ value: Double) -> String {
        var text = Text.fixed(value, decimals: 3)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }
}
