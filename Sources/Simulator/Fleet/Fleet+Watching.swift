import Dispatch
import Reactor
import Report

/// Watching the run: the thread that waits for its end (the duration, the connect timeout, a
/// stop), says how it goes, and sums up what it lost.
extension Fleet {
    /// The watching thread's jobs (`WatchSchedule`), in the order they run when due at the same
    /// wake: the order of the checks that matters (the duration's end before the connect
    /// deadline; a stop, asked before any of them, first).
    enum WatchJob: Equatable {
        /// A probe of every loop and the lines that sum up lost connections, each second.
        case probes
        /// The closed-loop check's figures of the second, each second.
        case pace
        /// `--duration`.
        case end
        /// The connect timeout, unless a connection came up.
        case connectDeadline
        /// The status line, every `--stats-interval`.
        case status
        /// The timeline's next point and the stages.
        case timeline
        /// The capacity search's next step.
        case capacity
    }

    /// `connectClock`: where the connect timeout counts from (see `run`). Sleeps until a job is
    /// due or a stop is asked for, which wakes it at once (`RunControl.wait`).
    func waitForEnd(start: UInt64, connectClock: UInt64) -> StopReason {
        let status = StatusReporter(
            logger: control.logger, connections: { [roster] in roster.connectionCount }, start: start,
            redraw: settings.liveStatus)
        defer { status.finish() }
        let interval = settings.liveStatus == nil ? settings.statsInterval : .seconds(1)
        let connectDeadline =
            connectClock &+ MonotonicClock.nanoseconds(firstOpen) &+ MonotonicClock.nanoseconds(settings.connectTimeout)
        let second: UInt64 = 1_000_000_000
        var schedule = WatchSchedule<WatchJob>()
        schedule.add(.probes, at: start, .every(second))
        if verifier != nil { schedule.add(.pace, at: start, .after(second)) }
        if let duration = settings.duration { schedule.add(.end, at: start &+ MonotonicClock.nanoseconds(duration), .once) }
        schedule.add(.connectDeadline, at: connectDeadline, .once)
        if let interval = interval.map({ max(1, MonotonicClock.nanoseconds($0)) }) {
            schedule.add(.status, at: start &+ interval, .catchingUp(interval))
        }
        schedule.add(.timeline, at: start, .asItSays)
        schedule.add(.capacity, at: start, .asItSays)
        defer { logLosses() }
        return schedule.watch(
            clock: MonotonicClock.now, stopReason: { control.stopReason },
            sleep: { control.wait(seconds: Double($0 ?? 60 * second) / 1e9) }
        ) { job, now in
            switch job {
            case .probes:
                probeLoops(now: now)
                logLosses()
            case .pace:
                let totals = self.totals
                verifier?.notePace(totals, publisherChanges: control.losses.load(ordering: .relaxed) + totals[.reconnects])
            case .end:
                return .end(.duration)
            case .connectDeadline:
                guard !hasEverConnected else { break }
                let why = control.lastFailure ?? verifier?.lastFailureReason.map { "verify: " + $0 } ?? noConnack
                return .end(.noConnection("no connection within \(formatSeconds(settings.connectTimeout)): \(why)"))
            case .status:
                let totals = self.totals
                status.report(
                    totals, latency: liveHistograms().latency, errors: errorCount(totals),
                    position: position(at: now, seconds: Double(now &- start) / 1e9), at: now)
            case .timeline:
                return .dueAgain(record(now: now))
            case .capacity:
                return .dueAgain(searchCapacity(now: now, connectDeadline: connectDeadline))
            }
            return .done
        }
    }

    /// One line for the connections lost since the last such line, by reason: a fleet too big to
    /// log each one (see `RunSettings.logConnectionEvents`) still says that it is losing them,
    /// in a few lines however many go. Before it, one for the messages that timed out waiting
    /// for their acknowledgement.
    func logLosses() {
        let timedOut = control.takeUnloggedAckTimeouts()
        if timedOut > 0 {
            control.logger.warning(
                "\(Text.counted(timedOut, "QoS 1/2 message")) waited longer than the ack timeout for an acknowledgement "
                    + "(counted as ackTimeouts)")
        }
        let losses = control.takeUnloggedLosses()
        guard !losses.isEmpty else { return }
        let total = losses.values.reduce(0, +)
        let reasons = losses.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .map { reason, count in "\(count) × \(reason.hasPrefix("connection lost: ") ? String(reason.dropFirst(17)) : reason)" }
        control.logger.warning("\(total) connection\(total == 1 ? "" : "s") lost: " + reasons.joined(separator: "; "))
    }
}
