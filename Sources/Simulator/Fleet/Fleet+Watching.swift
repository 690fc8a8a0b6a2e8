import Dispatch
import Reactor
import Report

/// Watching the run: the thread that waits for its end (the duration, the connect timeout, a
/// stop), says how it goes, and sums up what it lost.
extension Fleet {
    /// `connectClock`: where the connect timeout counts from (see `run`).
    func waitForEnd(start: UInt64, connectClock: UInt64) -> StopReason {
        let status = StatusReporter(
            logger: control.logger, connections: { [roster] in roster.connectionCount }, start: start,
            redraw: settings.liveStatus)
        defer { status.finish() }
        let interval = settings.liveStatus == nil ? settings.statsInterval : .seconds(1)
        var nextStatus = interval.map { start &+ MonotonicClock.nanoseconds($0) }
        let end = settings.duration.map { start &+ MonotonicClock.nanoseconds($0) }
        let connectDeadline =
            connectClock &+ MonotonicClock.nanoseconds(firstOpen) &+ MonotonicClock.nanoseconds(settings.connectTimeout)
        var nextPace = start
        defer { logLosses() }
        while true {
            if let reason = control.stopReason { return reason }
            let now = MonotonicClock.now()
            probeLoops(now: now)
            logLosses()
            if let verifier, now >= nextPace {
                let totals = self.totals
                verifier.notePace(
                    published: totals[.published], publisherChanges: control.losses.load(ordering: .relaxed) + totals[.reconnects])
                nextPace = now &+ 1_000_000_000
            }
            if let end, now >= end { return .duration }
            if !hasEverConnected, now >= connectDeadline {
                let why = control.lastFailure ?? verifier?.lastFailureReason.map { "verify: " + $0 } ?? noConnack
                return .noConnection("no connection within \(formatSeconds(settings.connectTimeout)): \(why)")
            }
            if let due = nextStatus, now >= due, let interval {
                let totals = self.totals
                status.report(
                    totals, latency: liveHistograms().latency, errors: errorCount(totals),
                    position: position(at: now, seconds: Double(now &- start) / 1e9), at: now)
                nextStatus = due &+ MonotonicClock.nanoseconds(interval)
            }
            let timelineDue = record(now: now)
            let searchDue = searchCapacity(now: now, connectDeadline: connectDeadline)
            // At least once a second, for the lines that sum up lost connections.
            let wake = max(
                now,
                [nextStatus, end, hasEverConnected ? nil : connectDeadline, timelineDue, searchDue, now &+ 1_000_000_000]
                    .compactMap { $0 }.min()!)
            control.wait(seconds: Double(wake - now) / 1e9)
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
