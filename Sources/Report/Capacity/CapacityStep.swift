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
