import Reactor
import Scenario
import Signals

/// The connection's comings and goings by its own clock: a `lifecycle`'s stays online and away,
/// and `devices` stages that bring it in and take it out.
extension DeviceConnection: TimerTarget {
    func timerFired(_ timer: Timer, now: UInt64) {
        if timer === lifecycleTimer {
            lifecycleTurned(now: now)
        } else if timer === presenceTimer {
            presenceTurned(now: now)
        } else if timer === renewalTimer {
            renewToken(now: now)
        } else if timer === rejoinTimer {
            follow(standing.reconnectDue())
        }
    }

    /// The next stay of `seconds`, drawn within the lifecycle's jitter.
    private func stay(_ seconds: Double, of lifecycle: Lifecycle) -> UInt64 {
        MonotonicClock.nanoseconds(lifecycle.stay(seconds, unit: lifecycleRandom.nextUnit()))
    }

    /// Up from a CONNACK: the lifecycle's online stay starts.
    func lifecycleConnected(now: UInt64) {
        guard let lifecycle = plan.lifecycle?.lifecycle else { return }
        lifecycleTimer.schedule(at: now &+ stay(lifecycle.online, of: lifecycle))
    }

    /// The online stay is over: leave cleanly, ticks counting as `paused`; or the offline stay
    /// is: come back, paused until the CONNACK.
    private func lifecycleTurned(now: UInt64) {
        // Not once the ticking is over: the drain and the goodbyes are the run's end.
        guard let lifecycle = plan.lifecycle?.lifecycle, context.control.isDue(now) else { return }
        if standing == .away {
            follow(standing.comeBack())
        } else if isConnected && standing == .active || standing.isReconnecting {
            follow(standing.goAway())
            lifecycleTimer.schedule(at: now &+ stay(lifecycle.offline, of: lifecycle))
        }
    }

    /// Seconds from the run's start to `time`, as the load profile counts them.
    func runSeconds(_ time: UInt64) -> Double {
        let start = context.control.startedAt
        return time >= start ? Double(time - start) / 1e9 : -Double(start - time) / 1e9
    }

    /// Whether the connection's stages have it in at `time`; it follows them from there.
    func isIn(at time: UInt64) -> Bool {
        guard let presence = plan.presence else { return true }
        let t = runSeconds(time)
        followPresence(after: t)
        return presence.isIn(at: t)
    }

    /// Sets the presence timer for the next join or leave after `t` seconds into the run; a
    /// nanosecond past it, so that the presence has changed when the timer fires. A Sparkplug
    /// edge node's: of any of its devices, each of which it says is born or dead.
    private func followPresence(after t: Double) {
        let next =
            sparkplug == nil
            ? plan.presence?.nextChange(after: t)?.at
            : devices.compactMap { $0.plan.profile?.presence?.nextChange(after: t)?.at }.min()
        guard let next else { return }
        presenceTimer.schedule(at: context.control.startedAt &+ MonotonicClock.nanoseconds(next) &+ 1)
    }

    /// The stages bring the connection in (it connects, or opens the first time) or take it
    /// out (it leaves cleanly, as a pause does; its devices have no ticks until they are in
    /// again). A pause by request holds through a join.
    private func presenceTurned(now: UInt64) {
        guard plan.presence != nil, standing != .ended, context.control.isDue(now) else { return }
        let isIn = isIn(at: now)
        // Out, the node's NDEATH says its devices are gone too.
        if isIn { sparkplugDevicesTurned(now: now) }
        guard let move = standing.stagesTurned(in: isIn, connected: isConnected) else { return }
        if logsEvents { context.control.logger.info(isIn ? "joining (stages)" : "leaving (stages)", metadata) }
        if !isIn, let dropped = droppedBy {
            // Out, it is not one of the storm's to come back.
            droppedBy = nil
            context.control.recoveries.withLock { $0[dropped.stage, default: (0, [])].dropped -= 1 }
        }
        follow(move)
    }
}
