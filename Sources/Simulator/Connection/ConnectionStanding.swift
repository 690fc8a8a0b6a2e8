/// Where a device connection stands apart from the network, which its `ConnectionDriver` follows:
/// one case at a time, so that a connection away by its lifecycle and out by its stages, or
/// resumed before it was ever opened, cannot be written. Each change returns what the driver must
/// do (`Move`), for the connection to carry out. A plain value, confined with its connection.
enum ConnectionStanding: Equatable {
    /// Made, not opened yet (its ramp-up, or a successor waiting for its predecessor); `paused`
    /// when a pause came first (a paused group's new connection), which its resume opens.
    case unopened(paused: Bool)
    /// Opened and in the fleet: its driver says whether it is up.
    case active
    /// Brought in by its stages, until its CONNACK or its first failed attempt.
    case joining
    /// Paused by request (the seed's phone in the background); `out` while its stages have it
    /// out, so that the pause holds through a join.
    case paused(out: Bool)
    /// Away by its `lifecycle`, whose timer brings it back; a group's resume does not.
    case away
    /// Back from a pause or a stay away, until the CONNACK: its ticks still count as `paused`.
    case resuming
    /// Out of the fleet by its stages: disconnected, its devices' clocks standing still. Its
    /// stages alone bring it back, not its lifecycle.
    case out
    /// Leaving and coming back by plan, until the CONNACK: `why` says what for. Neither
    /// a loss nor a pause: its ticks follow the offline policy for the moment it is down, its
    /// CONNACK counts as no reconnect, and its lifecycle's stay goes on through it.
    case reconnecting(PlannedReconnect)
    /// Stopped or retired: it never opens again.
    case ended

    /// Why a connection leaves and comes back by plan.
    enum PlannedReconnect: Equatable {
        /// Its SAS token is renewed (Azure IoT Hub): its CONNACK counts as a token renewal.
        case tokenRenewal
        /// Its Sparkplug primary host said it is offline: the edge node has said its NDEATH,
        /// and on its next connection waits for the host again (Sparkplug 3.0).
        case primaryHostOffline
    }

    /// What the connection's driver must do after a change.
    enum Move: Equatable {
        case stay
        /// Open at the ramp's deadline.
        case open
        /// Connect now: open if never opened (out from its start), else resume.
        case connect
        /// Leave cleanly, or give up an attempt under way (`ConnectionDriver.pause`).
        case disconnect
        /// Leave cleanly and connect again at once: a planned reconnect.
        case reconnect
    }

    /// A tick due now counts as `paused`: paused, away, out or joining.
    var parksTicks: Bool {
        switch self {
        case .unopened(let paused): paused
        case .paused, .away, .resuming, .out, .joining: true
        case .active, .reconnecting, .ended: false
        }
    }

    /// Counted among the connections paused (`Counters.connections(paused:)`): paused by
    /// request, away by its lifecycle or out by its stages.
    var countsAsPaused: Bool {
        switch self {
        case .unopened(let paused): paused
        case .paused, .away, .resuming, .out: true
        case .active, .joining, .reconnecting, .ended: false
        }
    }

    /// Paused by request or away by its lifecycle, or back from either: a CONNACK now ends a
    /// resume, not an outage.
    var isPausedOrAway: Bool {
        switch self {
        case .unopened(let paused): paused
        case .paused, .away, .resuming: true
        case .active, .joining, .reconnecting, .out, .ended: false
        }
    }

    /// Opens it, once: in or out as its stages have it now (`isIn`). A pause that came first
    /// holds; its resume connects.
    mutating func open(isIn: Bool) -> Move {
        guard case .unopened(let paused) = self else { return .stay }
        if paused {
            self = .paused(out: !isIn)
            return .stay
        }
        self = isIn ? .active : .out
        return isIn ? .open : .stay
    }

    /// A pause by request: it holds until the resume, through its stages' comings and goings.
    mutating func pause() -> Move {
        switch self {
        case .unopened: self = .unopened(paused: true)
        case .out, .paused(out: true): self = .paused(out: true)
        case .active, .joining, .away, .resuming, .reconnecting, .paused(out: false): self = .paused(out: false)
        case .ended: return .stay
        }
        return .disconnect
    }

    /// The resume of a pause by request: connects, resuming until the CONNACK, unless its stages
    /// have it out. Not one away by its lifecycle, nor one never opened. One paused before it was
    /// opened asks its stages now (`isIn`).
    mutating func resume(isIn: Bool) -> Move {
        if case .unopened(paused: true) = self { self = .paused(out: !isIn) }
        guard case .paused(let out) = self else { return .stay }
        self = out ? .out : .resuming
        return out ? .stay : .connect
    }

    /// The lifecycle's online stay is over: it leaves, if up and not paused otherwise.
    mutating func goAway() -> Move {
        // A planned reconnect under way is a connection up, as far as its lifecycle goes: the
        // stay ends when it was due, and the reconnect is given up.
        guard self == .active || isReconnecting else { return .stay }
        self = .away
        return .disconnect
    }

    /// It leaves cleanly and comes back, `why` says what for, if up and not on its way anywhere
    /// else: a SAS token due for renewal at once; a Sparkplug node whose primary host went
    /// offline when its reconnect delay is over (`reconnectDue()`), so that the broker is done
    /// with the old connection (mosquitto reads a packet of a connection a turn, and a CONNECT
    /// with the client id that comes before the old one's DISCONNECT takes its session over,
    /// publishing its will).
    mutating func reconnect(_ why: PlannedReconnect) -> Move {
        guard self == .active else { return .stay }
        self = .reconnecting(why)
        return why == .tokenRenewal ? .reconnect : .disconnect
    }

    /// The delay of a reconnect that waits is over: it connects, unless something else took it
    /// on its way meanwhile (a pause, its stages, its lifecycle, the run's end).
    mutating func reconnectDue() -> Move {
        self == .reconnecting(.primaryHostOffline) ? .connect : .stay
    }

    /// A planned reconnect is under way, until its CONNACK.
    var isReconnecting: Bool { plannedReconnect != nil }

    /// What the planned reconnect under way is for; `nil` for none.
    var plannedReconnect: PlannedReconnect? {
        if case .reconnecting(let why) = self { why } else { nil }
    }

    /// The lifecycle's offline stay is over: it comes back, resuming until the CONNACK.
    mutating func comeBack() -> Move {
        guard self == .away else { return .stay }
        self = .resuming
        return .connect
    }

    /// The stages bring it in or take it out; nil when that changes nothing. In, it joins
    /// until its CONNACK unless it is up already; out, it leaves whatever it was doing, and a
    /// resume under way is given up: the stages bring it back.
    mutating func stagesTurned(in isIn: Bool, connected: Bool) -> Move? {
        switch (self, isIn) {
        case (.out, true):
            self = connected ? .active : .joining
            return connected ? .stay : .connect
        case (.paused(out: true), true):
            self = .paused(out: false)
            return .stay
        case (.active, false), (.joining, false), (.away, false), (.resuming, false), (.reconnecting, false):
            self = .out
            return .disconnect
        case (.paused(out: false), false):
            self = .paused(out: true)
            return .disconnect
        default:
            return nil
        }
    }

    /// The CONNACK: no longer resuming, joining or reconnecting.
    mutating func connected() {
        switch self {
        case .active, .joining, .resuming, .reconnecting: self = .active
        default: break
        }
    }

    /// An attempt failed: a join the broker does not take is a device offline, whose ticks its
    /// offline policy has, not one joining. A planned reconnect stays one until its CONNACK: no
    /// loss came before it.
    mutating func attemptFailed() {
        if self == .joining { self = .active }
    }

    /// Stopped or retired: it never opens again.
    mutating func end() {
        self = .ended
    }
}
