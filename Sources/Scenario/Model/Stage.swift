/// One stage of a load profile (`stages:`, a scenario's or a device group's): over `duration`
/// seconds, every device's rate, or the number of devices in the fleet, ramps in a straight
/// line from the previous stage's target to this one's, as k6's ramping stages do. Before the
/// first stage the rate is the group's own `publish` rate, and every device is in, unless the
/// first stage sets `devices`: then the fleet grows from none. The profile is open: ticks
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
        /// How many devices are in: a group's own stages count its devices, the scenario's
        /// count the whole fleet's, shared among the groups by their counts. A device joins
        /// by connecting and leaves by disconnecting cleanly.
        case devices(Int)
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

    /// How the report and the logs name the target: `10/s`, `x2`; a stage with no ticks,
    /// `rate: 0/s` or `multiplier: 0`, is `0/s`, which reads as what it is.
    public var targetText: String {
        func number(_ value: Double) -> String {
            let rounded = (value * 1000).rounded() / 1000
            return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int(rounded)) : String(rounded)
        }
        return switch target {
        case .rate(let rate): number(rate.perSecond) + "/s"
        case .multiplier(let factor): factor == 0 ? "0/s" : "x" + number(factor)
        case .devices(let count): "\(count) devices"
        case .hold: "hold"
        }
    }
}

extension [Stage] {
    /// How long the profile lasts.
    public var seconds: Double { reduce(0) { $0 + $1.duration } }

    /// Whether a stage sets how many devices are in (`devices`).
    public var setsDevices: Bool {
        contains { if case .devices = $0.target { true } else { false } }
    }

    /// How many devices are in before the first stage, of `count`: none when the first stage
    /// sets `devices`, all of them otherwise.
    package func devicesBefore(count: Int) -> Int {
        if case .devices = first?.target { 0 } else { count }
    }

    /// The most devices in at once, of `count`.
    package func devicePeak(count: Int) -> Int {
        reduce(devicesBefore(count: count)) { peak, stage in
            if case .devices(let devices) = stage.target { Swift.max(peak, devices) } else { peak }
        }
    }
}
