import Dispatch
import Mosquitto

/// A run of the whole fleet: the event loops, their connections and devices, and the thread that
/// waits for the run's end (its duration, its message count, a stop request, or no broker at all)
/// and then winds it down: no new ticks, a bounded drain of unacknowledged messages, DISCONNECT.
public final class Fleet: Sendable {
    public enum StopReason: Sendable, Equatable {
        case duration
        case messages
        case requested
        /// No connection got a CONNACK within the connect timeout; the text says why.
        case noConnection(String)
    }

    public struct Result: Sendable {
        public var totals: Totals
        /// Connections up when the run ended, before the final DISCONNECT.
        public var connectionsUpAtEnd: Int
        public var connections: Int
        public var durationSeconds: Double
        public var reason: StopReason
    }

    private let settings: RunSettings
    private let control: RunControl
    private let contexts: [LoopContext]
    private let connectionCount: Int

    /// Builds every connection (nothing is opened yet). Throws when libmosquitto refuses a
    /// client's options, for example a TLS file it cannot read.
    public init(plan: FleetPlan, settings: RunSettings, logger: Logger) throws {
        self.settings = settings
        control = RunControl(messages: settings.messages, logger: logger)
        let loopCount = max(1, min(settings.loops, plan.connections.count))
        var contexts: [LoopContext] = []
        for index in 0..<loopCount {
            contexts.append(LoopContext(loop: try EventLoop(name: "devsim-loop-\(index)"), control: control))
        }
        let logsEvents = plan.connections.count <= 10
        for (index, connectionPlan) in plan.connections.enumerated() {
            let context = contexts[index % loopCount]
            context.connections.append(try Connection(plan: connectionPlan, seed: settings.seed,
                                                      maxInFlight: settings.maxInFlight,
                                                      logsEvents: logsEvents, context: context))
        }
        self.contexts = contexts
        connectionCount = plan.connections.count
    }

    /// Asks the run to end gracefully; callable from any thread (a signal handler's queue).
    public func requestStop() {
        control.stop(.requested)
    }

    /// The figures so far.
    public var totals: Totals { Totals(contexts.map(\.counters)) }

    /// Runs the fleet on the calling thread's watch until the run ends, then winds it down.
    public func run() throws -> Result {
        let start = MonotonicClock.now()
        for context in contexts {
            try context.loop.start()
            context.loop.execute {
                for connection in context.connections {
                    connection.open(at: start &+ UInt64(connection.plan.startOffset * 1e9))
                }
            }
        }
        let reason = waitForEnd(start: start)
        control.stopTicking()
        waitForTicksUnderWay()
        if case .noConnection = reason {} else { drain() }
        let connectionsUpAtEnd = totals.connectionsUp
        disconnectAll()
        for context in contexts { context.loop.stop() }
        let duration = Double(MonotonicClock.now() - start) / 1e9
        return Result(totals: totals, connectionsUpAtEnd: connectionsUpAtEnd, connections: connectionCount,
                      durationSeconds: duration, reason: reason)
    }

    private func waitForEnd(start: UInt64) -> StopReason {
        let status = StatusReporter(logger: control.logger, connections: connectionCount, start: start)
        var nextStatus = settings.statsInterval.map { start &+ UInt64($0 * 1e9) }
        let end = settings.duration.map { start &+ UInt64($0 * 1e9) }
        let connectDeadline = start &+ UInt64(settings.connectTimeout * 1e9)
        while true {
            if let reason = control.stopReason { return StopReason(reason) }
            let now = MonotonicClock.now()
            if let end, now >= end { return .duration }
            if !control.hasEverConnected, now >= connectDeadline {
                let why = control.lastFailure ?? "no CONNACK from the broker"
                return .noConnection("no connection within \(formatSeconds(settings.connectTimeout)): \(why)")
            }
            if let due = nextStatus, now >= due, let interval = settings.statsInterval {
                status.report(totals, at: now)
                nextStatus = due &+ UInt64(interval * 1e9)
            }
            var wake = [nextStatus, end, control.hasEverConnected ? nil : connectDeadline].compactMap { $0 }.min() ?? now &+ 1_000_000_000
            wake = max(wake, now)
            control.wait(seconds: Double(wake - now) / 1e9)
        }
    }

    /// Waits until every loop has finished the tick it may be in the middle of, so that the
    /// figures the drain reads include it: a loop runs one thing at a time, so once it has run
    /// a job queued after `stopTicking`, no tick is under way there and none will start.
    private func waitForTicksUnderWay() {
        let fence = DispatchGroup()
        for context in contexts {
            fence.enter()
            context.loop.execute { fence.leave() }
        }
        _ = fence.wait(timeout: .now() + 5)
    }

    /// Gives unacknowledged QoS 1/2 messages, and those still queued behind them, a bounded time.
    private func drain() {
        let deadline = MonotonicClock.now() &+ UInt64(settings.drainTimeout * 1e9)
        while MonotonicClock.now() < deadline {
            let current = totals
            if current.inFlight == 0, current.buffered == 0 || current.connectionsUp == 0 { return }
            control.wait(seconds: 0.01)
        }
        control.logger.warning("drain timeout: \(totals.inFlight) messages still unacknowledged")
    }

    private func disconnectAll() {
        for context in contexts {
            context.loop.execute {
                for connection in context.connections { connection.stop() }
            }
        }
        let deadline = MonotonicClock.now() &+ 2_000_000_000
        while control.finishedConnections.load(ordering: .relaxed) < connectionCount, MonotonicClock.now() < deadline {
            control.wait(seconds: 0.01)
        }
    }
}

extension Fleet.StopReason {
    init(_ reason: RunControl.StopReason) {
        switch reason {
        case .duration: self = .duration
        case .messages: self = .messages
        case .requested: self = .requested
        case .noConnection(let why): self = .noConnection(why)
        }
    }
}
