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
