/// Where a device connection stands apart from the network, which its `ConnectionDriver` follows:
/// opened or not, paused or away, in or out by its stages, ended. Each case says what its ticks
/// count as, so that states the flags it replaced allowed (away and not paused, parked and in) cannot
/// be written. A plain value, confined with its connection.
struct ConnectionStanding: Equatable {
    enum Phase: Equatable {
        /// Made, not opened yet (its ramp-up, or a successor waiting for its predecessor).
        case unopened
        case opened
        /// Stopped or retired: it never opens again.
        case ended
    }

    enum Pause: Equatable {
        case none
        /// Paused by request (the seed's phone in the background), or resuming: ticks count as
        /// `paused` from the request until the CONNACK of the resume.
        case paused
        /// Away by its `lifecycle`, whose timer brings it back; a group's resume does not.
        case away
    }

    /// Under `devices` stages (`plan.presence`); `.in` without them, which a `lifecycle` needs.
    enum Stages: Equatable {
        case `in`
        /// Brought in by its stages, until its CONNACK or its first failed attempt.
        case joining
        /// Out of the fleet: disconnected, its devices' clocks standing still.
        case out
    }

    var phase = Phase.unopened
    var pause = Pause.none
    var stages = Stages.in

    /// A tick due now counts as `paused`: paused, away, out or joining.
    var parksTicks: Bool { pause != .none || stages != .in }

    /// Counted among the connections paused (`Counters.connections(paused:)`): paused by
    /// request, away by its lifecycle or out by its stages.
    var countsAsPaused: Bool { pause != .none || stages == .out }

    /// The CONNACK: no longer paused, away or joining.
    mutating func connected() {
        pause = .none
        if stages == .joining { stages = .in }
    }

    /// The stages bring the connection in or take it out; whether that changed anything. In, it
    /// joins until its CONNACK, unless it is up already: a CONNACK can come while it is out (a
    /// resume under way when the stages took it out), and none would come again to end the join.
    mutating func stagesTurned(in isIn: Bool, connected: Bool) -> Bool {
        guard isIn == (stages == .out) else { return false }
        stages = isIn ? (connected ? .in : .joining) : .out
        return true
    }

    /// An attempt failed: a join the broker does not take is a device offline, whose ticks its
    /// offline policy has, not one joining.
    mutating func attemptFailed() {
        if stages == .joining { stages = .in }
    }

    /// Leaves the fleet for good (a reload, a scale).
    mutating func retire() {
        phase = .ended
        pause = .none
        stages = .in
    }
}
