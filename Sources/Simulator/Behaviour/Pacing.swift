import Reactor
import Signals

/// When a device's messages fall due, as its plan says: at its group's rate (under its load
/// profile), as fast as its connection takes them (`publish: max`), or at its recording's times.
/// Its clock starts at the device's first CONNACK, its first tick `startDelay` later. A plain
/// value whose state is its case: the run's `Device` and the dry run move it on alike.
enum Pacing {
    /// Not started yet: the first CONNACK starts it.
    case unstarted
    /// Absolute deadlines at the rate (`Schedule`).
    case scheduled(Schedule)
    /// As fast as the connection takes them, from `start`: no deadlines, no lateness.
    case fastest(start: UInt64)
    /// The recording's next message (`ReplayCursor`).
    case replaying(ReplayCursor)
    /// Stopped for good: its connection left the fleet, or its recording is over.
    case stopped

    /// Starts the clock at `now` for `plan`'s device ticking `perSecond` times a second (its
    /// plan's rate, or a command's): the first tick `plan.startDelay` later (at once for
    /// `publish: max`), a load profile counting from `runStart`. Returns the instant its time
    /// counts from (`TickTime.elapsed` 0), on the monotonic clock.
    mutating func start(_ plan: DevicePlan, perSecond: Double, now: UInt64, runStart: UInt64) -> UInt64 {
        let first = now &+ MonotonicClock.nanoseconds(plan.startDelay)
        if let replay = plan.replay {
            let cursor = replay.cursor(start: first)
            self = cursor.isFinished ? .stopped : .replaying(cursor)
        } else if !perSecond.isFinite {
            self = .fastest(start: now)
            return now
        } else {
            self = .scheduled(Schedule(start: first, perSecond: perSecond, profile: plan.profile, runStart: runStart))
        }
        return first
    }

    var hasStarted: Bool {
        if case .unstarted = self { false } else { true }
    }

    /// When its next message is due: `now` as fast as allowed; `nil` before the start, after
    /// the stop, or once a recording is over.
    func deadline(now: UInt64) -> UInt64? {
        switch self {
        case .scheduled(let schedule): schedule.deadline
        case .fastest: now
        case .replaying(let cursor): cursor.deadline
        case .unstarted, .stopped: nil
        }
    }

    /// The tick due now: its time since the first tick (without its wall clock, which the caller
    /// knows) and its deadline, `nil` for as fast as allowed, which has none.
    func due(now: UInt64) -> (time: TickTime, deadline: UInt64?)? {
        switch self {
        case .scheduled(let schedule): (TickTime(elapsed: schedule.elapsed, wallClock: 0), schedule.deadline)
        case .fastest(let start): (TickTime(elapsed: Double(now &- start) / 1e9, wallClock: 0), nil)
        case .replaying(let cursor): (TickTime(elapsed: cursor.elapsed, wallClock: 0, index: cursor.index), cursor.deadline)
        case .unstarted, .stopped: nil
        }
    }

    /// On to the next tick; a recording that is over stops.
    mutating func advance() {
        switch self {
        case .scheduled(var schedule):
            schedule.advance()
            self = .scheduled(schedule)
        case .replaying(var cursor):
            cursor.advance()
            self = cursor.isFinished ? .stopped : .replaying(cursor)
        case .fastest, .unstarted, .stopped:
            break
        }
    }

    /// Ticks `perSecond` times a second from `now` on (a rate command, a capacity step): the next
    /// tick stays where it was due. Not for `publish: max` nor a recording, which have no rate.
    mutating func setRate(_ perSecond: Double, now: UInt64) {
        guard case .scheduled(let schedule) = self else { return }
        self = .scheduled(schedule.rescheduled(perSecond: perSecond, at: now))
    }

    /// Seconds of the device's life at `now`, between ticks (a command's answer); 0 before the
    /// start.
    func elapsed(at now: UInt64) -> Double {
        switch self {
        case .scheduled(let schedule): schedule.elapsed(at: now)
        case .fastest(let start): Double(now &- start) / 1e9
        case .replaying(let cursor): cursor.start < now ? Double(now - cursor.start) / 1e9 : 0
        case .unstarted, .stopped: 0
        }
    }

    /// Whether its next tick is due at `now` or before: at a CONNACK, that tick is its state.
    func tickIsDue(by now: UInt64) -> Bool {
        guard case .scheduled(let schedule) = self else { return false }
        return schedule.deadline <= now
    }
}
