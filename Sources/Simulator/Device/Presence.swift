import Scenario

/// When one device is in the fleet under a load profile with `devices` stages: the stretches
/// of the run's time in which its group's device count reaches it. The count ramps in a
/// straight line within each stage; the device of rank `k` (its index less one) is in while
/// the count is above k, so the first devices join first and leave last: a ramp from 0 to N
/// over T seconds brings one in every T / N seconds from its start, and a ramp down to 0 takes
/// the last out at its end.
package struct Presence: Sendable, Equatable {
    /// From `on` to `off` seconds into the run; `off` is infinite for a stretch that lasts.
    package struct Stretch: Sendable, Equatable {
        package var on: Double
        package var off: Double
    }

    /// In order, apart from each other; empty for a device the profile never brings in.
    package private(set) var stretches: [Stretch] = []

    /// The presence of the device of rank `rank` in a group of `count` devices under `stages`.
    /// `share` scales the stages' `devices`: 1 for the group's own stages, the group's part of
    /// the fleet for the scenario's, whose counts are the whole fleet's.
    package init(stages: [Stage], count: Int, share: Double, rank: Int) {
        let needed = Double(rank)
        // Against rounding: a share of a fleet's count lands on a whole number only nearly.
        func reaches(_ count: Double) -> Bool { count > needed + 1e-9 }
        var start = 0.0
        var from = Double(stages.devicesBefore(count: count))
        var on: Double? = reaches(from) ? 0 : nil
        for stage in stages {
            let to: Double
            if case .devices(let devices) = stage.target { to = Double(devices) * share } else { to = from }
            // Where the straight line from `from` to `to` crosses `needed`, within the stage.
            func crossing() -> Double { start + stage.duration * min(1, max(0, (needed - from) / (to - from))) }
            if on == nil, reaches(to) {
                on = crossing()
                // Out and in again at one instant (down to its rank, then up) is staying in.
                if let last = stretches.last, last.off == on {
                    on = last.on
                    stretches.removeLast()
                }
            } else if let joined = on, !reaches(to) {
                let off = crossing()
                if off > joined { stretches.append(Stretch(on: joined, off: off)) }
                on = nil
            }
            start += stage.duration
            from = to
        }
        if let on { stretches.append(Stretch(on: on, off: .infinity)) }
    }

    /// Whether the device is in at `t` seconds into the run.
    package func isIn(at t: Double) -> Bool {
        stretches.contains { $0.on <= t && t < $0.off }
    }

    /// The first time after `t` at which the device joins or leaves, and which; `nil` when it
    /// never changes again.
    package func nextChange(after t: Double) -> (at: Double, joins: Bool)? {
        for stretch in stretches {
            if stretch.on > t { return (stretch.on, true) }
            if stretch.off > t { return stretch.off.isFinite ? (stretch.off, false) : nil }
        }
        return nil
    }
}
