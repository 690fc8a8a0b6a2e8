import Report
import Synchronization

/// A run's services and its work, in order, as swift-service-lifecycle's `ServiceGroup` runs
/// them: the services start in the order given, then the work (the fleet, the recorder) runs on
/// the calling thread, and its end ends the group; the services stop in reverse order, so that
/// none loses what it serves while it runs, and the run concludes (its report, its verdict)
/// before those that serve the conclusion stop last. A service that cannot start stops those
/// before it, and the work never begins.
public final class ServiceGroup: Sendable {
    /// A service, and when it stops.
    public struct Member: Sendable {
        public var service: any RunService
        /// Stopped once the run has concluded rather than when its work ends: the HTTP endpoint,
        /// which tells its streams the run finished and serves its figures until the report is
        /// written.
        public var servesTheConclusion: Bool

        public init(_ service: any RunService, servesTheConclusion: Bool = false) {
            self.service = service
            self.servesTheConclusion = servesTheConclusion
        }
    }

    /// What the services may ask of the work while it runs, from any thread.
    private struct Work: Sendable {
        var stop: @Sendable () -> Void
        var reload: (@Sendable () -> Reload)?
    }

    private let members: [Member]
    private let work = Mutex<Work?>(nil)

    public init(_ members: [Member]) {
        self.members = members
    }

    /// Starts the services, runs `work` until it ends, stops the services that do not serve the
    /// conclusion, concludes with `conclude`, and stops the rest; each stop in reverse order,
    /// whatever threw. `stop` asks the work to end gracefully (the first SIGINT or SIGTERM);
    /// `reload`, when the work can be reloaded, reloads it (SIGHUP).
    public func run<Outcome, Conclusion>(
        _ work: () throws -> Outcome, stop: @escaping @Sendable () -> Void, reload: (@Sendable () -> Reload)? = nil,
        concluding conclude: (Outcome) throws -> Conclusion
    ) throws -> Conclusion {
        self.work.withLock { $0 = Work(stop: stop, reload: reload) }
        var running: [Member] = []
        func stopRunning(where stops: (Member) -> Bool) {
            for member in running.reversed() where stops(member) { member.service.stop() }
            running.removeAll(where: stops)
        }
        defer { stopRunning { _ in true } }
        for member in members {
            try member.service.start(in: self)
            running.append(member)
        }
        let outcome: Outcome
        do {
            defer { self.work.withLock { $0 = nil } }
            outcome = try work()
        }
        stopRunning { !$0.servesTheConclusion }
        return try conclude(outcome)
    }

    /// Asks the work to end gracefully, from the moment `run` starts the services (a signal
    /// that comes before the work begins ends it as it begins) until the work has ended. Any
    /// thread.
    public func requestStop() {
        work.withLock { $0 }?.stop()
    }

    /// Reloads the work, its services told before and after in their order; nothing when it
    /// cannot be reloaded, or has ended. Any thread, one reload at a time.
    public func reload() {
        guard let reload = work.withLock({ $0?.reload }) else { return }
        for member in members { member.service.reloading() }
        let done = reload()
        for member in members { member.service.reloaded(done) }
    }
}
