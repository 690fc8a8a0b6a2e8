/// The search of `run --find-capacity`, as a plain state machine: told whether each step met
/// every SLO, it says which rate multiplier to hold next, or that the search is over.
///
/// The first step is the scenarios' own rate (×1). While every step passes, the rate doubles;
/// after the first that breaks an SLO, it bisects between the highest that passed and the
/// lowest that broke, until those are within `resolution` of each other. A step that
/// contradicts an earlier one (a pass above a break: a noisy broker) simply narrows the bounds
/// it falls between.
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

    package init(resolution: Double = defaultResolution, maximum: Double = defaultMaximum) {
        precondition(resolution > 0 && maximum >= 1, "a capacity search needs a resolution above 0 and a maximum of at least 1")
        self.resolution = resolution
        self.maximum = maximum
    }

    /// The step under way ended: it met every SLO, or not. Returns what to do next.
    package mutating func stepEnded(passing: Bool) -> Action {
        if passing {
            passed = max(passed ?? current, current)
        } else {
            broke = min(broke ?? current, current)
        }
        guard let passed else { return .finish }  // even the first step broke one
        guard let broke else {
            guard current * 2 <= maximum else { return .finish }
            current *= 2
            return .hold(multiplier: current)
        }
        guard broke > passed * (1 + resolution) else { return .finish }
        current = (passed + broke) / 2
        return .hold(multiplier: current)
    }
}
