/// A capacity search's answer in words, made from its steps alone, so that the line `run`
/// prints and the HTML report say what the step table shows: a rate that passed once and broke
/// when held again is said to have done both, and what held the broken steps back is counted
/// over all of them, not taken from one.
extension CapacityFigures {
    /// Each limiter the broken steps named, with how many steps it held back, most first.
    package var limiterCounts: [(limiter: Limiter, steps: Int)] {
        let named = steps.filter { !$0.passed }.compactMap(\.limiter)
        let counts = Limiter.allCases.map { limiter in (limiter: limiter, steps: named.count { $0 == limiter }) }
        // Ties in the order of `Limiter`.
        return counts.indices.sorted { (counts[$0].steps, $1) > (counts[$1].steps, $0) }.map { counts[$0] }.filter { $0.steps > 0 }
    }

    /// What held back the steps that broke an SLO: `the broker (2 steps) and this machine (2
    /// steps)`; `nil` when none was judged.
    package var limitedBy: String? {
        let counts = limiterCounts
        guard !counts.isEmpty else { return nil }
        return Self.list(counts.map { "\($0.limiter.words) (\($0.steps) step\($0.steps == 1 ? "" : "s"))" })
    }

    /// Whether the search ran and no rate met every SLO each time it was held: the run fails
    /// (exit 4), as the scenarios' own rate did not hold.
    package var foundNoRate: Bool { !steps.isEmpty && capacity == nil }

    /// Each rate that passed some holds and broke others, lowest first, and how: `passed step 1
    /// and broke step 7`.
    package var disagreements: [(targetPerSecond: Double, story: String)] {
        Set(steps.map(\.targetPerSecond)).sorted().compactMap { rate in
            let held = steps.filter { $0.targetPerSecond == rate }
            let passed = held.filter(\.passed).map(\.step), broke = held.filter { !$0.passed }.map(\.step)
            guard !passed.isEmpty, !broke.isEmpty else { return nil }
            return (rate, "passed \(Self.steps(passed)) and broke \(Self.steps(broke))")
        }
    }

    /// `2000/s passed step 1 and broke step 7; 4000/s passed step 2 and broke step 6`, leaving out
    /// the rate `except`.
    package func disagreementsInWords(except: Double? = nil) -> String {
        disagreements.filter { $0.targetPerSecond != except }.map { "\(Assertion.number($0.targetPerSecond))/s \($0.story)" }
            .joined(separator: "; ")
    }

    /// The answer in one line, `capacity: …`: the rate, or why there is none, what held back
    /// the steps that broke, and how sure it is. `searchLimit`: the multiplier at which the
    /// doubling stops (`CapacitySearch.maximum`).
    package func answer(searchLimit: Double) -> String {
        let sure = sureness.map { "; " + $0 } ?? ""
        let limited = limitedBy.map { "; the steps that broke were limited by " + $0 } ?? ""
        let base = "the scenarios' own \(Assertion.number(baseRatePerSecond))/s"
        guard !steps.isEmpty else { return "capacity: the run ended before the first step was measured; no answer" }
        guard let found = capacity else {
            guard steps.contains(where: \.passed) else {
                return "capacity: even the first step, \(base), broke an SLO: lower the scenarios' rates to search from below" + limited
                    + sure
            }
            // The scenarios' rate is the first held, and the search holds none above it before
            // it has passed there: it is among the rates that did both.
            let own = disagreements.first { $0.targetPerSecond == baseRatePerSecond }.map { ", which " + $0.story } ?? ""
            let others = disagreementsInWords(except: baseRatePerSecond)
            return "capacity: no rate met every SLO each time it was held, not even \(base)\(own)"
                + (others.isEmpty ? "" : "; " + others) + limited + sure
        }
        let rate =
            "\(Assertion.number(found.targetPerSecond))/s (x\(Assertion.number(found.multiplier)) the scenarios' rates, step \(found.step))"
        guard let broke = brokeAt else {
            let capped = found.multiplier * 2 > searchLimit
            return "capacity: at least \(rate): no step broke an SLO"
                + (capped ? ", up to the search's limit of x\(Assertion.number(searchLimit))" : " before the run ended") + sure
        }
        // The rate above the answer says whose figure it is: a hold of it that devsim or this
        // machine held back makes it none of the broker's.
        let above = steps.first { !$0.passed && $0.targetPerSecond == broke.targetPerSecond && ($0.limiter ?? .broker) != .broker }
        let notTheBrokers = above.map { step in
            "; the rate above was limited by \(step.limitedBy ?? step.limiter?.words ?? ""), so this is no figure of the broker's"
        }
        return "capacity: \(rate) met every SLO" + limited + (notTheBrokers ?? "") + sure
    }

    /// `step 1`, `steps 1 and 3`, `steps 1, 3 and 5`.
    private static func steps(_ numbers: [Int]) -> String {
        (numbers.count == 1 ? "step " : "steps ") + list(numbers.map(String.init))
    }

    /// `a`, `a and b`, `a, b and c`.
    private static func list(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
    }
}

extension Limiter {
    /// As a sentence names it: `the broker`, `devsim`, `this machine`.
    package var words: String {
        switch self {
        case .broker: "the broker"
        case .devsim: "devsim"
        case .machine: "this machine"
        }
    }
}
