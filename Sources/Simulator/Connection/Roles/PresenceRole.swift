import Reactor

/// `devices` stages (`ConnectionPlan.presence`): the stages bring the connection in (it connects,
/// or opens the first time) and take it out (it leaves cleanly, as a pause does; its devices have
/// no ticks until they are in again). A pause by request holds through a join.
final class PresenceRole: ConnectionRole {
    let name = "stages"
    private let presence: Presence
    /// When the connection next joins the fleet or leaves it.
    private var timer: RoleTimer?

    init?(plan: ConnectionPlan) {
        guard let presence = plan.presence else { return nil }
        self.presence = presence
    }

    /// Whether the stages have the connection in at `now`; it follows them from there.
    func keepsIn(at now: UInt64, _ context: any RoleContext) -> Bool {
        let t = context.secondsIntoRun(now)
        follow(after: t, context)
        return presence.isIn(at: t)
    }

    func timerFired(_ timer: RoleTimer, now: UInt64, _ context: any RoleContext) {
        guard context.standing != .ended, context.isTicking(at: now) else { return }
        let isIn = keepsIn(at: now, context)
        context.stagesTurned(in: isIn)
    }

    func finished(_ context: any RoleContext) {
        timer?.cancel()
    }

    /// Its timer at the next join or leave after `t` seconds into the run; a nanosecond past it,
    /// so that the presence has changed when the timer fires.
    private func follow(after t: Double, _ context: any RoleContext) {
        guard let next = presence.nextChange(after: t)?.at else { return }
        if timer == nil { timer = context.makeTimer(for: self) }
        timer?.schedule(at: context.instant(secondsIntoRun: next) &+ 1)
    }
}
