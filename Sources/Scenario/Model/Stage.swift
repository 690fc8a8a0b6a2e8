/// One stage of a scenario's load profile (`stages:`): over `duration` seconds, every device's
/// rate ramps in a straight line from the previous stage's target (the group's own `publish`
/// rate before the first) to this one's, as k6's ramping stages do. The profile is open: ticks
/// follow it whatever the broker does, so a slow broker shows as lateness and drops.
public struct Stage: Sendable, Equatable {
    public var duration: Double
    public var target: Target
    /// `disconnect: all`: at the stage's start every connection of the fleet is dropped at
    /// once, as a network failure would (no DISCONNECT), and comes back through its backoff:
    /// a reconnect storm, whose recovery the report times.
    public var disconnectsAll = false
    package var location: SourceLocation?

    public enum Target: Sendable, Equatable {
        /// Each device's rate, as a group's `publish` gives it.
        case rate(Rate)
        /// The group's own rate times this; `0` stops the ticks.
        case multiplier(Double)
        /// The previous stage's target, held (a stage that only disconnects).
        case hold
    }

    package init(duration: Double, target: Target, disconnectsAll: Bool = false, location: SourceLocation? = nil) {
        self.duration = duration
        self.target = target
        self.disconnectsAll = disconnectsAll
        self.location = location
    }

    /// The stage as it runs, wherever it is written: what a reload compares.
    package var profile: Stage { Stage(duration: duration, target: target, disconnectsAll: disconnectsAll) }

    /// How the report and the logs name the target: `10/s`, `x2`.
    public var targetText: String {
        func number(_ value: Double) -> String {
            let rounded = (value * 1000).rounded() / 1000
            return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int(rounded)) : String(rounded)
        }
        return switch target {
        case .rate(let rate): number(rate.perSecond) + "/s"
        case .multiplier(let factor): "x" + number(factor)
        case .hold: "hold"
        }
    }
}
