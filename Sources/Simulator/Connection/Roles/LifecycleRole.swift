import Reactor
import Scenario
import Signals

/// A group's `lifecycle`: the connection stays up for a while from each CONNACK, leaves cleanly,
/// stays away, and comes back, each stay drawn within its jitter. Its ticks count as `paused`
/// while it is away. A pause by request stops its clock; a planned reconnect (a token's renewal)
/// goes on with the stay under way rather than starting one.
final class LifecycleRole: ConnectionRole {
    let name = "lifecycle"
    private let lifecycle: Lifecycle
    /// The draws of its stays, from its group's seed.
    private var random: Xoshiro256StarStar
    /// When the connection next leaves (while up) or comes back (while away).
    private var timer: RoleTimer?

    init?(plan: ConnectionPlan) {
        guard let (lifecycle, seed) = plan.lifecycle else { return nil }
        self.lifecycle = lifecycle
        random = Seed(seed).generator()
    }

    /// Up from a CONNACK: the online stay starts, but not at the end of a planned reconnect.
    func connected(_ context: any RoleContext) {
        guard context.connackEndsPlannedReconnect == nil else { return }
        schedule(stay: lifecycle.online, context)
    }

    /// The online stay is over: leave cleanly, ticks counting as `paused`; or the offline stay
    /// is: come back, paused until the CONNACK. Not once the ticking is over: the drain and the
    /// goodbyes are the run's end.
    func timerFired(_ timer: RoleTimer, now: UInt64, _ context: any RoleContext) {
        guard context.isTicking(at: now) else { return }
        let standing = context.standing
        if standing == .away {
            context.changeStanding { $0.comeBack() }
        } else if context.isConnected && standing == .active || standing.isReconnecting {
            context.changeStanding { $0.goAway() }
            schedule(stay: lifecycle.offline, context)
        }
    }

    /// A pause by request holds until the resume: the lifecycle waits for it.
    func paused(_ context: any RoleContext) {
        timer?.cancel()
    }

    func finished(_ context: any RoleContext) {
        timer?.cancel()
    }

    /// The next stay of `seconds`, drawn within the lifecycle's jitter.
    private func schedule(stay seconds: Double, _ context: any RoleContext) {
        if timer == nil { timer = context.makeTimer(for: self) }
        timer?.schedule(at: context.now &+ MonotonicClock.nanoseconds(lifecycle.stay(seconds, unit: random.nextUnit())))
    }
}
