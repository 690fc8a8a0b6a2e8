/// `broker.ackTimeout`'s watch over the QoS 1/2 messages awaiting acknowledgement: each is counted
/// among `ackTimeouts` once it has waited the limit since its publish, and with
/// `onAckTimeout: reconnect` a connection on which one has waited that long since it was (re)sent
/// on it is overdue. A plain value; the connection keeps the waits and a timer at `next`.
struct AckWatch {
    /// The limit, in nanoseconds.
    let limit: UInt64
    /// `onAckTimeout: reconnect`.
    let reconnects: Bool

    /// One message's wait.
    struct Wait {
        let publishedAt: UInt64
        /// Since when its acknowledgement has been awaited on the connection that is up: its
        /// publish, or the CONNACK after which libmosquitto resent it.
        var awaitedSince: UInt64
        /// Counted among `ackTimeouts` (once, however long it goes on waiting).
        var timedOut = false

        init(publishedAt: UInt64) {
            self.publishedAt = publishedAt
            awaitedSince = publishedAt
        }
    }

    /// What one look at the waits found.
    struct Finding: Equatable {
        /// Waits that reached the limit now, each counted once.
        var timedOut = 0
        /// A wait on the connection that is up reached the limit: reconnect.
        var overdue = false
        /// When to look again; nil when nothing can time out any more.
        var next: UInt64?
    }

    /// Looks at `wait` at `now`, marking it timed out where it just reached the limit, into
    /// `finding`. `connected`: whether the connection is up, the only one that can be overdue.
    func examine(_ wait: inout Wait, now: UInt64, connected: Bool, into finding: inout Finding) {
        if !wait.timedOut {
            if now &- wait.publishedAt >= limit {
                wait.timedOut = true
                finding.timedOut += 1
            } else {
                finding.lookAgain(at: wait.publishedAt &+ limit)
            }
        }
        guard reconnects, connected else { return }
        if now &- wait.awaitedSince >= limit { finding.overdue = true } else { finding.lookAgain(at: wait.awaitedSince &+ limit) }
    }
}

extension AckWatch.Finding {
    fileprivate mutating func lookAgain(at time: UInt64) {
        next = min(next ?? .max, time)
    }
}
