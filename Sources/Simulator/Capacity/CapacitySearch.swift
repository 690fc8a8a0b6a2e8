/// The search of `run --find-capacity`, as a plain state machine: told whether each step met
/// every SLO, it says which rate multiplier to hold next, or that the search is over.
///
/// The first step is the scenarios' own rate (×1). While every step passes, the rate doubles;
/// after the first that breaks an SLO, it bisects between the highest that passed and the
/// lowest that broke, until those are within `resolution` of each other. A step that
/// contradicts an earlier one (a pass above a break: a noisy broker) simply narrows the bounds
/// it falls between. Before the answer, the two steps that bound it, the highest that passed and
/// the lowest that broke, are held once more each: a verdict that does not repeat makes the
/// answer unsure, and says so (`CapacityFigures.isSure`).
package struct CapacitySearch: Sendable, Equatable {
    package enum Action: Sendable, Equatable {
        /// Hold the scenarios' rates times this for the next step.
        case hold(multiplier: Double)
        /// The search is over; `passed` and `broke` give its answer.
        case finish
    }

    /// The multiplier of the step under way.
    package private(set) var current = 1.0
    /// The highest multiplier that met every SLO; `nil` while none has.
    package private(set) var passed: Double?
    /// The lowest multiplier that broke an SLO; `nil` while none has.
    package private(set) var broke: Double?
    /// Done when the lowest break is within this share above the highest pass: 0.1 is 10 %.
    package let resolution: Double
    /// The doubling stops here: a broker this fleet cannot break in `maximum` times its rate
    /// has a capacity of at least that.
    package let maximum: Double

    package static let defaultResolution = 0.1
    package static let defaultMaximum = 1024.0

    /// The boundary's steps still to hold again; the search is confirming once it has begun.
    private var confirmations: [Double] = []
    package private(set) var isConfirming = false
    /// Every multiplier held, with whether each of its holds passed.
    private var holds: [Double: [Bool]] = [:]

    package init(resolution: Double = defaultResolution, maximum: Double = defaultMaximum) {
        precondition(resolution > 0 && maximum >= 1, "a capacity search needs a resolution above 0 and a maximum of at least 1")
        self.resolution = resolution
        self.maximum = maximum
    }

    /// The step under way ended: it met every SLO, or not. Returns what to do next.
    package mutating func stepEnded(passing: Bool) -> Action {
        holds[current, default: []].append(passing)
        // A confirmation's verdict is the answer's to weigh, not the bisection's; but when the
        // highest pass breaks, the answer is the one below it, which is held again too.
        guard !isConfirming else {
            if !passing, current == passed,
                let below = holds.filter({ $0.key < current && $0.value.allSatisfy { $0 } && $0.value.count == 1 }).keys.max()
            {
                confirmations.insert(below, at: 0)
            }
            return nextConfirmation()
        }
        if passing {
            passed = max(passed ?? current, current)
        } else {
            broke = min(broke ?? current, current)
        }
        guard let passed else { return confirm() }  // even the first step broke one
        guard let broke else {
            guard current * 2 <= maximum else { return confirm() }
            current *= 2
            return .hold(multiplier: current)
        }
        guard broke > passed * (1 + resolution) else { return confirm() }
        current = (passed + broke) / 2
        return .hold(multiplier: current)
    }

    /// The bisection is over: the boundary's steps are held again, the highest that passed
    /// first.
    private mutating func confirm() -> Action {
        isConfirming = true
        confirmations = [passed, broke].compactMap { $0 }
        return nextConfirmation()
    }

    private mutating func nextConfirmation() -> Action {
        guard !confirmations.isEmpty else { return .finish }
        current = confirmations.removeFirst()
        return .hold(multiplier: current)
    }
}
