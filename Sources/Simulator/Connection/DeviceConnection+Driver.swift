import MQTT
import Mosquitto
import Reactor
import Report

/// What the driver and the client report: the connection up, lost, paused or finished; SUBACKs,
/// acknowledgements, messages and room to write. The roles hear each in their order.
extension DeviceConnection {
    func driverWillConnect() throws(ClientSetupError) {
        if telemetry.mustDiscardLibraryQueue {
            try client.discardQueuedMessages()
            telemetry.mustDiscardLibraryQueue = false
        }
        for role in roles.all { try role.willConnect(self) }
    }

    func driverDidConnect(firstTime: Bool) {
        for role in roles.all { role.reachedBroker(self) }
        warnOfNoRetain()
        noteALPN()
        counters.connections(up: 1)
        hostLink?.connected()
        tally.isCountedUp = true
        context.control.noteConnected(firstTime: firstTime && settings.isInitial, of: context.connectionCount)
        // A resume is not a connection coming back after a loss, nor is a planned reconnect (a
        // token's renewal, a primary host gone offline), whose CONNACK goes on with the
        // lifecycle's stay rather than starting one.
        let planned = firstTime ? nil : standing.plannedReconnect
        if planned == .tokenRenewal {
            counters.add(.tokenRenewals)
        } else if !firstTime, planned == nil, !standing.isPausedOrAway {
            counters.add(.reconnects)
        }
        standing.connected()
        follow(.stay)
        if let dropped = droppedBy {
            droppedBy = nil
            let back = Double(MonotonicClock.now() &- dropped.at) / 1e9
            context.control.recoveries.withLock { $0[dropped.stage, default: (0, [])].back.append(back) }
        }
        logEvent(firstTime ? "connected" : "reconnected")
        // Before any telemetry: the device is there, and what it has; after every CONNACK the
        // subscriptions, which a clean session forgets.
        tally.connackEndsPlannedReconnect = planned
        for role in roles.all { role.connected(self) }
        tally.connackEndsPlannedReconnect = nil
        let now = MonotonicClock.now()
        telemetry.connected(now: now)
        for device in devices { device.connectionCameUp(now: now) }
        telemetry.flush()
        // After what the queue held, so that it is the last word.
        if context.control.isDue(now) {
            for device in devices { device.sayStateAtConnect(now: now) }
        }
        telemetry.wakeSleepers()
    }

    func driverWillDisconnect() -> ReasonCode {
        for role in roles.all { role.disconnecting(farewell, self) }
        let farewell = farewell
        return roles.all.lazy.compactMap { $0.disconnectReason(farewell) }.first ?? .success
    }

    func driverAwaitsAcknowledgements() -> Bool {
        telemetry.awaitsAcknowledgements
    }

    func driverDidLoseConnection(reason: String) {
        // libmosquitto resends them on the next connection, whose close waits for what it has.
        telemetry.lostConnection()
        for role in roles.all { role.lost(self) }
        counters.connections(up: -1)
        // A stage's `disconnect: all` drops it on purpose: counted apart from the errors, and
        // from its host's losses.
        hostLink?.down(lost: droppedBy == nil)
        tally.isCountedUp = false
        context.control.connectionLost(reason, logged: settings.logsEvents, onPurpose: droppedBy != nil)
        if settings.logsEvents { context.control.logger.log(droppedBy != nil ? .info : .warning, reason, metadata) }
    }

    func driverAttemptFailed(_ failure: AttemptFailure) {
        if failure.refusal != nil || failure.unansweredByBroker {
            for role in roles.all { role.reachedBroker(self) }
        }
        standing.attemptFailed()
        tally.attemptHasFailed = true
        let speaksMQTT5 = client.options.protocolVersion == .v5
        var failure = failure
        // A refusal is of this connection's identity: named, with the row of the credentials
        // file its secrets come from, which is then what to check.
        var named: String?
        if failure.refusal != nil {
            let row = plan.credentialsRow
            named = "client id \(plan.options.clientID ?? "-")" + (row.map { ", \($0.file):\($0.line)" } ?? "")
            if let row, failure.refusal?.refusesCredentials == true { failure.hint = "; check the device's row of \(row.file)" }
        }
        context.control.connectionFailed(
            failure.reason + (failure.unansweredByBroker && speaksMQTT5 ? AttemptFailure.mqtt5Hint : ""), connection: named,
            host: client.options.host, port: client.options.port)
        if let refusal = failure.refusal, refusal.refusesCredentials, !tally.credentialsRefused, settings.isInitial {
            tally.credentialsRefused = true
            context.control.noteCredentialsRefused(failure.reason, of: context.connectionCount)
        }
    }

    /// A cluster's next host: its messages count there from now on.
    func driverWillFailOver(from: BrokerAddress, to: BrokerAddress) {
        if let counters = hostLink?.failOver(to: to) { telemetry.count(on: counters, host: plan.options.hosts.firstIndex(of: to) ?? 0) }
        logEvent("the next attempt goes to \(to), the cluster's next host")
    }

    /// Not after credentials refused, before any were accepted: a run they all were ends with
    /// exit 3, and the retries of one refused among many would repeat its warning in other words.
    func driverWillRetry(after delay: Double) {
        guard !tally.credentialsRefused || driver.hasConnected else { return }
        logEvent("reconnecting in \(formatSeconds(delay))")
    }

    func driverDidFinish() {
        telemetry.finish()
        for role in roles.all { role.finished(self) }
        // A clean DISCONNECT loses nothing: counted down here (the run's end has read its
        // figure by then; a retired connection's group has one fewer up now).
        if tally.isCountedUp { counters.connections(up: -1) }
        hostLink?.down(lost: false)
        tally.isCountedUp = false
        context.control.connectionFinished()
        let successor = whenFinished
        whenFinished = nil
        successor?()
    }

    func driverDidPause(wasConnected: Bool) {
        if wasConnected, tally.isCountedUp { counters.connections(up: -1) }
        hostLink?.down(lost: false)
        tally.isCountedUp = false
        if !standing.isReconnecting { logEvent("paused") }
    }

    /// Each connection the broker accepted counts once in the loop's connection timings.
    func driverConnected(after attempt: ConnectAttempt) {
        context.connectTimings.record(attempt)
    }
}

extension DeviceConnection {
    func client(_ client: Client, didDisconnect error: MosquittoError?) {
        driver.closed(error, stable: !telemetry.lossSuspectsQoS2(error))
    }

    /// A PUBACK, PUBCOMP or PUBREC with a refusal or not; for QoS 0, a write. A DISCONNECT
    /// waiting for the last goes out.
    func client(_ client: Client, didPublish messageID: Int32, reasonCode: ReasonCode) {
        guard telemetry.acknowledged(messageID, reasonCode: reasonCode) else { return }
        if !telemetry.awaitsAcknowledgements { driver.quiet() }
        telemetry.flush()
        telemetry.wakeSleepers()
    }

    func clientCanWrite(_ client: Client) {
        telemetry.flush()
        telemetry.wakeSleepers()
    }

    /// Where the broker keeps no retained messages (Retain Available 0 in its CONNACK), a word,
    /// once: libmosquitto then sends the devices' without the flag.
    private func warnOfNoRetain() {
        guard !client.brokerLimits.retainAvailable, let device = devices.first,
            device.plan.retain || device.plan.availability != nil || device.plan.discovery != nil
        else { return }
        warnOnce(
            "the broker keeps no retained messages (Retain Available 0 in its CONNACK): device group '\(device.plan.group)' "
                + "publishes without retain, and a subscriber that comes later sees nothing until the next message")
    }

    /// The protocol the broker chose from `tls.alpn`, for the debug log; none chosen is said
    /// once a run: a broker that needs one (AWS IoT Core on 443) closes the connection instead.
    private func noteALPN() {
        guard let asked = client.options.libraryTLS?.alpn, !asked.isEmpty else { return }
        if let chosen = client.negotiatedALPN {
            if settings.logsEvents { context.control.logger.debug("ALPN: the broker chose \(chosen)", metadata) }
        } else {
            warnOnce(
                "the broker chose none of the ALPN protocols offered (tls.alpn: \(asked.joined(separator: ", "))): "
                    + "it does not speak ALPN, and a broker that needs it would have refused", key: "alpn")
        }
    }

    func client(_ client: Client, didSubscribe messageID: Int32, grantedQoS: [Int32]) {
        guard let (role, suback) = roles.acknowledged(messageID, grantedQoS: grantedQoS) else { return }
        role.subscribed(suback, self)
    }

    /// A command for one of the devices, or Home Assistant's birth message: the first role whose
    /// message it is takes it. One no role takes, on a topic none of the subscriptions match, a
    /// broker rewrote (an NCMD of RabbitMQ 3.10): counted and said.
    func client(_ client: Client, didReceive message: ReceivedMessage) {
        for role in roles.all where role.received(message, self) { return }
        guard let warning = UnmatchedTopic.warning(topic: message.topic, filters: roles.filters) else { return }
        telemetry.counters.add(.unmatched)
        warnOnce(warning + "; it is ignored, and counted as unmatched", key: "unmatched topic")
    }
}
