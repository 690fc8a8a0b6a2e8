import Dispatch
import Reactor
import Report
import Synchronization

/// Reaching into the loops from the watching thread: jobs on every loop, sums over their
/// connections, the probes that find a stuck loop, the drain and the goodbyes.
extension Fleet {
    /// Waits until every loop has finished the tick it may be in the middle of, so that the
    /// figures the drain reads include it: a loop runs one thing at a time, so once it has run
    /// a job queued after `stopTicking`, no tick is under way there and none will start.
    func waitForTicksUnderWay() {
        onEveryLoop(timeout: 5) { _, _ in }
    }

    /// Runs `job` on every loop, on its thread, and waits at most `timeout` seconds for all of
    /// them; returns whether all ran. A loop too busy to run it in time runs it later.
    @discardableResult
    func onEveryLoop(timeout: Double = 1, _ job: @escaping @Sendable (_ index: Int, _ context: LoopContext) -> Void) -> Bool {
        let answered = DispatchGroup()
        for (index, context) in contexts.enumerated() {
            answered.enter()
            context.execute { context in
                job(index, context)
                answered.leave()
            }
        }
        return answered.wait(timeout: .now() + timeout) == .success
    }

    /// The sum of `count` over every loop's connections, each loop's asked on its thread, and
    /// whether every loop answered within a second (the sum is of those that did).
    func sumOverConnections(_ count: @escaping @Sendable (DeviceConnection) -> Int) -> (sum: Int, complete: Bool) {
        let sum = Atomic<Int>(0)
        let complete = onEveryLoop { _, context in sum.add(context.connections.reduce(0) { $0 + count($1) }, ordering: .relaxed) }
        return (sum.load(ordering: .relaxed), complete)
    }

    /// Gives unacknowledged QoS 1/2 messages, and those queued behind them, a bounded time on
    /// the connections still up; a connection that is down has nothing to drain.
    func drain() {
        let deadline = MonotonicClock.now() &+ MonotonicClock.nanoseconds(settings.drainTimeout)
        while drainableConnections() > 0 {
            guard MonotonicClock.now() < deadline else {
                let t = totals
                control.logger.warning(
                    "drain timeout after \(formatSeconds(settings.drainTimeout)): "
                        + "\(t[.inFlight]) messages unacknowledged, \(t[.buffered]) still queued")
                return
            }
            control.wait(seconds: 0.01)
        }
    }

    /// Asks each loop, on its own thread, for a copy of its histograms: a loop that answers is
    /// not stuck (`Live.stuckLoops`), and the service shows what it sent.
    func probeLoops(now: UInt64) {
        liveState.withLock { state in
            for index in state.unansweredSince.indices where state.unansweredSince[index] == 0 { state.unansweredSince[index] = now }
        }
        for (index, context) in contexts.enumerated() {
            context.execute { [liveState] context in
                let latency = context.latency, lateness = context.lateness, samples = context.samples
                let connectTimings = context.connectTimings
                context.wantSamples()
                liveState.withLock { state in
                    state.latency[index] = latency
                    state.lateness[index] = lateness
                    state.connectTimings[index] = connectTimings
                    state.samples[index] = samples
                    state.unansweredSince[index] = 0
                }
            }
        }
    }

    /// Ticks queued on the connections that are up, asked on their loops; `nil` when a loop did
    /// not answer within a second.
    func queuedWhileUp() -> Int? {
        let queued = sumOverConnections { $0.queuedWhileUp }
        return queued.complete ? queued.sum : nil
    }

    /// Connections that are up with messages unacknowledged or queued, asked on their loops.
    func drainableConnections() -> Int {
        sumOverConnections { $0.hasDrainableMessages ? 1 : 0 }.sum
    }

    func disconnectAll() {
        controls.execute { controls in for control in controls { control.stop() } }
        for context in contexts {
            context.execute { context in
                for connection in context.connections { connection.stop() }
            }
        }
        let deadline = MonotonicClock.now() &+ 2_000_000_000
        while control.finishedConnections.load(ordering: .relaxed) < roster.madeCount, MonotonicClock.now() < deadline {
            control.wait(seconds: 0.01)
        }
    }
}
