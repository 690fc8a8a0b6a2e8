/// The verdict on one assertion, as the report's `expectations` array holds it:
/// `{"assertion":"rate>=99.5%","passed":false,"actual":97.12,"message":"97.12% (2.38 points short)"}`.
/// `actual` is in the figure's base unit (percent, milliseconds, or the count), `null` when the
/// report lacks the figure.
public struct Verdict: Codable, Sendable, Equatable {
    public var assertion: String
    public var passed: Bool
    public var actual: Double?
    public var message: String

    public init(assertion: String, passed: Bool, actual: Double?, message: String) {
        self.assertion = assertion
        self.passed = passed
        self.actual = actual
        self.message = message
    }

    /// `expect rate>=99.5%: FAILED, 97.12% (2.38 points short)`.
    public var logLine: String {
        "expect \(assertion): \(passed ? "passed" : "FAILED"), \(message)"
    }

    enum CodingKeys: String, CodingKey { case assertion, passed, actual, message }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(assertion, forKey: .assertion)
        try container.encode(passed, forKey: .passed)
        try container.encode(actual, forKey: .actual)  // null, not absent, when unavailable
        try container.encode(message, forKey: .message)
    }
}
