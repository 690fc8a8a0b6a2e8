import Reactor
import Report

/// A capacity search's steps and the stages' storms, carried out on the loops.
extension Fleet {
    /// Moves a capacity search on (`settings.capacity`): starts it once every connection is
    /// up (or at the connect timeout, with those that are), takes its readings when due, sets
    /// each step's rate, and ends the run when it is over. Returns when it is next due.
    func searchCapacity(now: UInt64, connectDeadline: UInt64) -> UInt64? {
        guard
            let state = tracking.withLock({
                $0.capacity.map {
                    (connecting: $0.isConnecting, coolingDown: $0.isCoolingDown, awaitingArrivals: $0.isAwaitingArrivals, due: $0.due)
                }
            })
        else { return nil }
        if state.connecting {
            let allUp = control.allConnectedAt.load(ordering: .relaxed) != 0
            guard allUp || now >= connectDeadline else { return now &+ 20_000_000 }
            if !allUp {
                control.logger.warning(
                    "capacity: \(totals.connectionsUp) of \(roster.connectionCount) connections up after "
                        + "\(formatSeconds(settings.connectTimeout)); the search starts with those")
            }
            tracking.withLock { $0.capacity?.connected(now: now) }
            return tracking.withLock { $0.capacity?.due }
        }
        guard let due = state.due, now >= due else { return state.due }
        var reading = reading(now: now)
        if state.coolingDown { reading.queuedWhileUp = queuedWhileUp() }
        if state.awaitingArrivals { reading.stepLoss = verifier?.stepLoss }
        let (closed, action, next) = tracking.withLock { tracking in
            let (closed, action) = tracking.capacity?.record(reading) ?? (nil, nil)
            return (closed, action, tracking.capacity?.due)
        }
        if let closed { control.logger.log(closed.passed ? .info : .warning, closed.logLine) }
        switch action {
        case .coolDown:
            control.logger.info(
                "capacity: back at the scenarios' rates until nothing is queued (at most "
                    + "\(formatSeconds(CapacityStepper.maximumCoolDown))), so that the next step starts unloaded")
            scaleRates(by: 1)
        case .setMultiplier(let multiplier):
            scaleRates(by: multiplier)
        case .finish:
            control.stop(.searched)
        case .openStepWindows:
            verifier?.openStepWindows()
        case .closeStepWindows:
            verifier?.closeStepWindows()
        case nil:
            break
        }
        return next
    }

    /// Every device ticks at its plan's rate times `multiplier` from now on.
    func scaleRates(by multiplier: Double) {
        for context in contexts {
            context.execute { context in
                let now = MonotonicClock.now()
                for connection in context.connections { connection.scaleRates(by: multiplier, now: now) }
            }
        }
    }

    /// Stage `stage`'s reconnect storm (`disconnect: all`): every connection up is dropped on
    /// its loop, at once.
    func dropEveryConnection(stage: Int) {
        control.logger.info("stage \(stage): dropping every connection (disconnect: all)")
        // Recorded even if none is up to drop, so the stage still says what it did.
        control.recoveries.withLock { $0[stage, default: (0, [])].dropped += 0 }
        for context in contexts {
            context.execute { context in
                let now = MonotonicClock.now()
                for connection in context.connections { connection.drop(stage: stage, now: now) }
            }
        }
    }
}
