import Scenario

/// The report's `capacity`, from `run --find-capacity`: the SLOs, each step held, and the
/// answer they give.
///
/// ```json
/// "capacity": {"slos": ["lateness.p99<5ms", "p99<50ms"], "stepSeconds": 15, "warmUpSeconds": 5,
///   "baseRatePerSecond": 1000, "capacityPerSecond": 12000, "brokeAtPerSecond": 13000,
///   "brokenFirst": {"assertion": "p99<50ms", "passed": false, "actual": 61.2, "message": "..."},
///   "steps": [{"step": 1, "multiplier": 1, "targetPerSecond": 1000, "passed": true, ...}]}
/// ```
public struct CapacityFigures: Codable, Sendable, Equatable {
    public var slos: [String]
    public var stepSeconds: Double
    public var warmUpSeconds: Double
    /// The scenarios' own aggregate rate: the first step's target.
    public var baseRatePerSecond: Double
    public var steps: [CapacityStep] = []

    package init(slos: [String], stepSeconds: Double, warmUpSeconds: Double, baseRatePerSecond: Double) {
        self.slos = slos
        self.stepSeconds = stepSeconds
        self.warmUpSeconds = warmUpSeconds
        self.baseRatePerSecond = baseRatePerSecond
    }

    /// The step of the highest target every hold of which met every SLO; `nil` when none did.
    /// A rate held twice (the boundary's, see `CapacitySearch`) that passed once and broke once
    /// is not the capacity: the one below it is.
    public var capacity: CapacityStep? {
        steps.filter { step in steps.allSatisfy { $0.targetPerSecond != step.targetPerSecond || $0.passed } }
            .max { $0.targetPerSecond < $1.targetPerSecond }
    }
    /// The step of the lowest target that broke an SLO; `nil` when none did (the search
    /// stopped at its maximum, or the run was cut short).
    public var brokeAt: CapacityStep? { steps.filter { !$0.passed }.min { $0.targetPerSecond < $1.targetPerSecond } }
    /// The verdict on the SLO that broke first, at `brokeAt`.
    public var brokenFirst: Verdict? { brokeAt.flatMap { step in step.verdicts.first { $0.assertion == step.brokenFirst } } }

    /// The holds of the answer's two rates, `capacity`'s and `brokeAt`'s, each held twice at the
    /// end of a search that ran its course: how sure the answer is.
    public var boundary: [RateHolds] {
        [capacity, brokeAt].compactMap { $0 }.map { step in RateHolds(steps.filter { $0.targetPerSecond == step.targetPerSecond }) }
    }

    /// Whether the answer stood when held again: its rate met every SLO each time, the one above
    /// broke one each time (at least twice each, the search ran its course).
    public var isSure: Bool {
        let holds = boundary
        return !holds.isEmpty && holds.allSatisfy { $0.holds >= 2 && ($0.passed == 0 || $0.passed == $0.holds) }
    }

    /// `sure: 16000/s passed 2 of 2 holds, 17000/s broke in 2 of 2 holds`, or unsure, with the
    /// spread of the broken SLO's figure over the holds of the rate that broke; `nil` without
    /// an answer's steps.
    package var sureness: String? {
        let boundary = self.boundary
        guard !boundary.isEmpty else { return nil }
        let tallies = boundary.map { "\(Assertion.number($0.targetPerSecond))/s \($0.tally)" }.joined(separator: ", ")
        let spread = brokeAt.flatMap { broke in
            broke.brokenFirst.flatMap { slo in
                boundary.first { $0.targetPerSecond == broke.targetPerSecond && $0.holds > 1 }?.spread[slo].map { range in
                    " (\(slo): \(Assertion.number(range[0])) to \(Assertion.number(range[1])) at \(Assertion.number(broke.targetPerSecond))/s)"
                }
            }
        }
        return (isSure ? "sure: " : "unsure, the verdicts did not repeat: ") + tallies + (spread ?? "")
    }

    private enum Key: String, CodingKey {
        case slos, stepSeconds, warmUpSeconds, baseRatePerSecond, steps, capacityPerSecond, brokeAtPerSecond, brokenFirst, boundary, sure
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        slos = try container.decode([String].self, forKey: .slos)
        stepSeconds = try container.decode(Double.self, forKey: .stepSeconds)
        warmUpSeconds = try container.decode(Double.self, forKey: .warmUpSeconds)
        baseRatePerSecond = try container.decode(Double.self, forKey: .baseRatePerSecond)
        steps = try container.decode([CapacityStep].self, forKey: .steps)
    }

    /// The answer is written for the reader, and made anew from the steps when read back.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(slos, forKey: .slos)
        try container.encode(stepSeconds, forKey: .stepSeconds)
        try container.encode(warmUpSeconds, forKey: .warmUpSeconds)
        try container.encode(baseRatePerSecond, forKey: .baseRatePerSecond)
        try container.encode(steps, forKey: .steps)
        try container.encodeIfPresent(capacity?.targetPerSecond, forKey: .capacityPerSecond)
        try container.encodeIfPresent(brokeAt?.targetPerSecond, forKey: .brokeAtPerSecond)
        try container.encodeIfPresent(brokenFirst, forKey: .brokenFirst)
        try container.encode(boundary, forKey: .boundary)
        try container.encode(isSure, forKey: .sure)
    }
}

/// Every hold of one rate: how many met every SLO, and each SLO's figure, the lowest and
/// highest over them (`{"lateness.p99<5ms": [3.1, 4.6]}`): the spread a repeat showed.
public struct RateHolds: Codable, Sendable, Equatable {
    public var targetPerSecond: Double
    public var holds: Int
    public var passed: Int
    public var spread: [String: [Double]]

    package init(_ steps: [CapacityStep]) {
        targetPerSecond = steps.first?.targetPerSecond ?? 0
        holds = steps.count
        passed = steps.count(where: \.passed)
        var spread: [String: [Double]] = [:]
        for verdict in steps.flatMap(\.verdicts) {
            guard let actual = verdict.actual else { continue }
            let range = spread[verdict.assertion] ?? [actual, actual]
            spread[verdict.assertion] = [min(range[0], actual), max(range[1], actual)]
        }
        self.spread = spread
    }

    /// `passed 2 of 2 holds`, `broke in 1 of 2 holds`.
    package var tally: String {
        passed == holds ? "passed \(passed) of \(holds) holds" : "broke in \(holds - passed) of \(holds) holds"
    }
}

/// One step of a capacity search: its target, the figures of its hold (a timeline point's,
/// after the warm-up) and the SLOs' verdicts on them.
public struct CapacityStep: Codable, Sendable, Equatable {
    /// 1-based, in the order held.
    public var step: Int
    /// The scenarios' rates times this.
    public var multiplier: Double
    public var targetPerSecond: Double
    public var point: Timeline.Point
    /// With a `lost` SLO: what the hold published and what of it arrived (`StepWindow`).
    public var loss: StepLoss?
    public var verdicts: [Verdict]
    /// Of the SLOs the step broke, the one furthest past its limit (`Assertion.excess`): of
    /// several broken at once, the one a slightly lower rate would still break; `nil` for a
    /// step that passed.
    public var brokenFirst: String?
    /// What the hold left devsim and its machine; `nil` where it was not measured.
    public var headroom: StepHeadroom?
    /// For a step that broke an SLO with its headroom measured: what held it back, and why,
    /// in words (`StepHeadroom.limiter`).
    public var limiter: Limiter?
    public var limitedBy: String?

    package init(
        step: Int, multiplier: Double, targetPerSecond: Double, point: Timeline.Point, loss: StepLoss? = nil, verdicts: [Verdict],
        brokenFirst: String?, headroom: StepHeadroom? = nil
    ) {
        self.step = step
        self.multiplier = multiplier
        self.targetPerSecond = targetPerSecond
        self.point = point
        self.loss = loss
        self.verdicts = verdicts
        self.brokenFirst = brokenFirst
        self.headroom = headroom
    }

    public var passed: Bool { verdicts.allSatisfy(\.passed) }

    /// Messages published per second over the hold.
    public var ratePerSecond: Double { point.seconds > 0 ? Double(point.published) / point.seconds : 0 }

    /// `capacity step 4: 8000/s (x8) for 15.0s, 7998.2/s published: broke p99<50ms, 61.2 ms
    /// (11.2 ms over); lateness.p99<5ms 0.8 ms; limited by the broker (p99<50ms), while devsim's
    /// busiest loop was 41 % busy and the machine had room`.
    public var logLine: String {
        let verdicts = verdicts.sorted { ($0.assertion == brokenFirst ? 0 : 1) < ($1.assertion == brokenFirst ? 0 : 1) }
            .map { "\($0.assertion) \($0.message)" }.joined(separator: "; ")
        return "capacity step \(step): \(Assertion.number(targetPerSecond))/s (x\(Assertion.number(multiplier))) for "
            + "\(formatSeconds(point.seconds)), \(Assertion.number(ratePerSecond))/s published: "
            + (passed ? "passed" : "broke") + ", " + verdicts + (limitedBy.map { "; limited by \($0)" } ?? "")
    }

    /// Judges what held the step back, where it broke an SLO and its headroom was measured.
    package mutating func judgeLimiter(slos: [Assertion]) {
        guard !passed, let headroom else { return }
        (limiter, limitedBy) = headroom.limiter(brokenFirst: slos.first { $0.text == brokenFirst })
    }

    private enum Key: String, CodingKey {
        case step, multiplier, targetPerSecond, loss, verdicts, brokenFirst, passed, ratePerSecond, headroom, limiter, limitedBy
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        step = try container.decode(Int.self, forKey: .step)
        multiplier = try container.decode(Double.self, forKey: .multiplier)
        targetPerSecond = try container.decode(Double.self, forKey: .targetPerSecond)
        loss = try container.decodeIfPresent(StepLoss.self, forKey: .loss)
        verdicts = try container.decode([Verdict].self, forKey: .verdicts)
        brokenFirst = try container.decodeIfPresent(String.self, forKey: .brokenFirst)
        headroom = try container.decodeIfPresent(StepHeadroom.self, forKey: .headroom)
        limiter = try container.decodeIfPresent(Limiter.self, forKey: .limiter)
        limitedBy = try container.decodeIfPresent(String.self, forKey: .limitedBy)
        point = try Timeline.Point(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(step, forKey: .step)
        try container.encode(multiplier, forKey: .multiplier)
        try container.encode(targetPerSecond, forKey: .targetPerSecond)
        try container.encodeIfPresent(loss, forKey: .loss)
        try container.encode(verdicts, forKey: .verdicts)
        try container.encodeIfPresent(brokenFirst, forKey: .brokenFirst)
        try container.encode(passed, forKey: .passed)
        try container.encode((ratePerSecond * 100).rounded() / 100, forKey: .ratePerSecond)
        try container.encodeIfPresent(headroom, forKey: .headroom)
        try container.encodeIfPresent(limiter, forKey: .limiter)
        try container.encodeIfPresent(limitedBy, forKey: .limitedBy)
        try point.encode(to: encoder)
    }
}
