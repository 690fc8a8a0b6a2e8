import Report

extension Verifier {
    /// What a device (or a Sparkplug edge node) published on a topic the verifier watches, as
    /// its loop counted it: added to its topic's figures at the end (`summary`).
    package struct Publication: Sendable {
        package var connection: ConnectionPlan
        package var topic: String
        /// Handed to the broker, less what it refused.
        package var count: Int
        /// Of `count`, published while its subscriber was not listening (`VerifierPresence`).
        package var whileAway: Int
        /// Of `count`, published to a host of `broker.hosts` its subscriber was not on.
        package var unwatched: Int
        /// Of `count`, not acknowledged when the run ended (QoS 1/2).
        package var unacknowledged: Int

        package init(
            connection: ConnectionPlan, topic: String, count: Int, whileAway: Int = 0, unwatched: Int = 0, unacknowledged: Int = 0
        ) {
            self.connection = connection
            self.topic = topic
            self.count = count
            self.whileAway = whileAway
            self.unwatched = unwatched
            self.unacknowledged = unacknowledged
        }
    }

    /// The summary, with what each device published added to its topic's figures (by its
    /// connection's options and its topic). Call after `stop()`.
    package func summary(published: [Publication]) -> VerifySummary {
        for device in published {
            if let owner = owner(of: device.connection, topic: device.topic) {
                let connection = connections[owner.connection].value
                connection.streams.streams[owner.stream].published += device.count
                connection.streams.streams[owner.stream].publishedWhileAway += device.whileAway
                connection.streams.streams[owner.stream].publishedUnwatched += device.unwatched
                connection.streams.streams[owner.stream].unacknowledged += device.unacknowledged
            }
        }
        let streams = topics
        var latency = Histogram()
        for connection in connections { latency.merge(connection.value.latency) }
        var summary = VerifySummary(
            received: streams.reduce(0) { $0 + $1.received },
            lost: streams.reduce(0) { $0 + $1.lost },
            duplicated: streams.reduce(0) { $0 + $1.duplicated },
            outOfOrder: streams.reduce(0) { $0 + $1.outOfOrder },
            e2eLatency: latency.isEmpty ? nil : Percentiles(latency))
        summary.missedWhileAway = streams.reduce(0) { $0 + $1.missedWhileAway }
        summary.unconfirmed = streams.reduce(0) { $0 + $1.unconfirmed }
        summary.unwatched = streams.reduce(0) { $0 + $1.unwatched }
        let unmatched = unmatched.load(ordering: .relaxed)
        if unmatched > 0 { summary.unmatched = unmatched }
        let pace = pace.withLock { $0 }
        summary.missingWhileConnected = max(0, min(summary.lost, pace.missingWhileConnected))
        // A subscriber behind loses some of every topic; one that never sees a thing of a topic
        // of five messages or more is not let read it.
        let silent = streams.count { $0.published >= Verifier.silentAfter && $0.deliveries == 0 }
        if silent > 0 { summary.silentTopics = silent }
        summary.acceptedPerSecond = pace.acceptedPerSecond
        summary.receivedPerSecond = pace.receivedPerSecond
        summary.fellBehind = summary.missingWhileConnected > 0 && pace.fellBehind && summary.silentTopics == nil
        if connections.contains(where: { !$0.value.everSubscribed || $0.value.gaveUp }) {
            summary.invalid =
                problem.withLock { $0 } ?? lastFailure.withLock { $0 }.map { "the verifier never connected: " + $0 }
                ?? "the broker never acknowledged the verifier's subscriptions"
            summary.fellBehind = false
        }
        return summary
    }
}
