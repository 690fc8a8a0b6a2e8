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

    /// The longest a step with a `lost` SLO waits after its hold for its last messages to
    /// arrive: the search's rule, which the report states.
    package static let arrivalLimit = Duration.seconds(5)

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
    /// spread of the broken SLO's figure over the holds of the rate that broke: because a
    /// verdict did not repeat, or because the run ended before a rate was held again (a search
    /// cut short by `--duration`); `nil` without an answer's steps.
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
        let once = boundary.filter { $0.holds < 2 }.map { "\(Assertion.number($0.targetPerSecond))/s" }
        let why =
            isSure
            ? "sure: "
            : boundary.contains { $0.passed != 0 && $0.passed != $0.holds }
                ? "unsure, the verdicts did not repeat: "
                : "unsure, the run ended before \(once.joined(separator: " and ")) \(once.count == 1 ? "was" : "were") held again: "
        return why + tallies + (spread ?? "")
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
