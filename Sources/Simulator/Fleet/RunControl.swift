import Dispatch
import Reactor
import Report
import Synchronization

/// What the event loops and the thread that runs the fleet share: whether devices still tick,
/// the message budget, and the few events that end a run. Lock-free on the tick path.
final class RunControl: Sendable {
    let logger: Logger
    private let ticking = Atomic<Bool>(true)
    /// Monotonic nanoseconds from which no tick is due any more: the end of `--duration`.
    private let end = Atomic<UInt64>(.max)
    /// Monotonic nanoseconds at which the run started: what a load profile counts from.
    private let started = Atomic<UInt64>(0)
    private let remaining: Atomic<Int>
    private let everConnected = Atomic<Bool>(false)
    let finishedConnections = Atomic<Int>(0)
    /// Per stage that dropped every connection (`disconnect: all`): how many it dropped, and
    /// the seconds each took to be back.
    let recoveries = Locked<[Int: (dropped: Int, back: [Double])]>([:])
    private let reason = Locked<StopReason?>(nil)
    private let wake = DispatchSemaphore(value: 0)
    private let reported = Locked<Set<String>>([])
    private let failure = Locked<String?>(nil)
    private let errorCounts = Locked<[String: Int]>([:])

    /// Whether a run whose every connection had its credentials refused goes on trying
    /// (`--retry-refused`: an auth back end that starts late) instead of ending at once.
    private let retriesRefusedCredentials: Bool
    private let credentialRefusals = Atomic<Int>(0)

    init(messages: Int?, retriesRefusedCredentials: Bool = false, logger: Logger) {
        remaining = Atomic(messages ?? Int.max)
        self.retriesRefusedCredentials = retriesRefusedCredentials
        self.logger = logger
    }

    /// One more connection whose credentials the broker refused (each counts once): when that is
    /// every one of `connections` and none was ever accepted, no attempt can do better, so the
    /// run ends now (exit 3) rather than at the connect timeout.
    func noteCredentialsRefused(_ reason: String, of connections: Int) {
        guard credentialRefusals.add(1, ordering: .relaxed).newValue == connections, !hasEverConnected,
            !retriesRefusedCredentials
        else { return }
        stop(.noConnection("every connection was refused: \(reason) (--retry-refused keeps trying)"))
    }

    /// Sets the run's start, before any connection opens.
    func start(at instant: UInt64) {
        started.store(instant, ordering: .relaxed)
    }

    /// The run's start on the monotonic clock; 0 before it.
    var startedAt: UInt64 { started.load(ordering: .relaxed) }

    /// Sets the run's end; ticks due at or after it do not happen, however late the loop
    /// that would run them notices the end.
    func end(at deadline: UInt64) {
        end.store(deadline, ordering: .relaxed)
    }

    /// Whether a tick due at `deadline` belongs to the run.
    @inline(__always)
    func isDue(_ deadline: UInt64) -> Bool {
        ticking.load(ordering: .relaxed) && deadline < end.load(ordering: .relaxed)
    }

    func stopTicking() {
        ticking.store(false, ordering: .relaxed)
    }

    /// Takes one tick from the `--messages` budget; false once it is spent, and the run is told.
    @inline(__always)
    func takeTick() -> Bool {
        let left = remaining.subtract(1, ordering: .relaxed).newValue
        if left == 0 { stop(.messages) }
        return left >= 0
    }

    private let firstConnects = Atomic<Int>(0)
    /// Monotonic nanoseconds at which the last connection came up for the first time; 0 until then.
    let allConnectedAt = Atomic<UInt64>(0)

    /// A connection's CONNACK accepted it; `firstTime` when it had never been up before. With
    /// `counted: false`, a connection that left the fleet before it was ever up: no longer
    /// waited for, and no sign of a broker.
    func noteConnected(firstTime: Bool, of connections: Int, counted: Bool = true) {
        if counted { everConnected.store(true, ordering: .relaxed) }
        if firstTime, firstConnects.add(1, ordering: .relaxed).newValue == connections {
            allConnectedAt.store(MonotonicClock.now(), ordering: .relaxed)
        }
    }

    var hasEverConnected: Bool { everConnected.load(ordering: .relaxed) }

    /// Asks the run to end; the first reason given is the one reported.
    func stop(_ why: StopReason) {
        let first = reason.withLock { current in
            if current == nil {
                current = why
                return true
            }
            return false
        }
        if first { wake.signal() }
    }

    var stopReason: StopReason? { reason.withLock { $0 } }

    /// Waits until something happens or `seconds` pass.
    func wait(seconds: Double) {
        _ = wake.wait(timeout: .now() + .nanoseconds(Int(max(0, seconds) * 1e9)))
    }

    func connectionFinished() {
        finishedConnections.add(1, ordering: .relaxed)
        wake.signal()
    }

    /// Records why a connection attempt failed, and logs it the first time its `key` (by default
    /// the reason itself) is seen, so a thousand devices failing for one reason make one line.
    /// `connection` names the one that failed, where it matters (a refusal of its identity):
    /// the line names the first, and the report keeps it beside the count.
    func connectionFailed(_ reason: String, key: String? = nil, connection: String? = nil, host: String, port: Int32) {
        failure.withLock { $0 = reason }
        count(key ?? reason)
        if let connection { firstFailed.withLock { $0[key ?? reason] = $0[key ?? reason] ?? connection } }
        warnOnce(reason + (connection.map { " (first: \($0))" } ?? ""), key: key ?? reason, host: host, port: port)
    }

    /// Logs `message` unless a line with the same `key` (by default the message) was logged.
    func warnOnce(_ message: String, key: String? = nil, host: String, port: Int32) {
        if reported.withLock({ $0.insert(key ?? message).inserted }) {
            logger.warning(message, ["broker": "\(host):\(port)"])
        }
    }

    /// Logs `message` unless a line with the same `key` was logged: a problem of no broker's (a
    /// device script's).
    func warnOnce(_ message: String, key: String) {
        if reported.withLock({ $0.insert(key).inserted }) { logger.warning(message) }
    }

    var lastFailure: String? { failure.withLock { $0 } }

    /// Counts a connection problem by its reason, for the report.
    func count(_ reason: String) {
        errorCounts.withLock { $0[reason, default: 0] += 1 }
    }

    /// Told of every group command carried out, whichever way it came (HTTP, the control topic):
    /// the service's event stream.
    let commandObserver = Locked<(@Sendable (GroupCommand, String, Int) -> Void)?>(nil)

    /// Connections lost so far, whatever the reason.
    let losses = Atomic<Int>(0)

    /// Messages counted among `ackTimeouts` since the last line that said so.
    private let unloggedAckTimeouts = Atomic<Int>(0)

    /// `count` more messages waited longer than `broker.ackTimeout` for their acknowledgement;
    /// the next summary line says so (`takeUnloggedAckTimeouts`).
    func noteAckTimeouts(_ count: Int) {
        unloggedAckTimeouts.add(count, ordering: .relaxed)
    }

    /// The timed-out messages since the last call.
    func takeUnloggedAckTimeouts() -> Int {
        unloggedAckTimeouts.exchange(0, ordering: .relaxed)
    }

    /// Lost connections not logged one by one (big fleets), by reason, since the last summary.
    private let unloggedLosses = Locked<[String: Int]>([:])

    /// A connection that was up is gone, for `reason`; a connection whose comings and goings are
    /// not logged leaves it to the next summary line (`takeUnloggedLosses`). One a stage dropped
    /// `onPurpose` (`disconnect: all`) is no error, nor a warning: its stage's `recovery`
    /// counts it.
    func connectionLost(_ reason: String, logged: Bool, onPurpose: Bool = false) {
        losses.add(1, ordering: .relaxed)
        guard !onPurpose else { return }
        count(reason)
        if !logged { unloggedLosses.withLock { $0[reason, default: 0] += 1 } }
    }

    /// The losses since the last call that no line has named yet.
    func takeUnloggedLosses() -> [String: Int] {
        unloggedLosses.withLock { losses in
            defer { losses.removeAll() }
            return losses
        }
    }

    /// How often each connection problem happened.
    var connectionErrors: [String: Int] { errorCounts.withLock { $0 } }

    /// The first connection each problem named (`connectionFailed`), by the problem.
    private let firstFailed = Locked<[String: String]>([:])
    var connectionErrorsFirst: [String: String] { firstFailed.withLock { $0 } }
}
