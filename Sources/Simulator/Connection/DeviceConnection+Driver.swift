import MQTT
import Mosquitto
import Reactor
import Report

/// What the driver and the client report: the connection up, lost, paused or finished; SUBACKs,
/// acknowledgements, messages and room to write.
extension DeviceConnection {
    func driverWillConnect() throws(ClientSetupError) {
        if telemetry.mustDiscardLibraryQueue {
            try client.discardQueuedMessages()
            telemetry.mustDiscardLibraryQueue = false
        }
        try makeToken()
        try setSparkplugWill()
    }

    func driverDidConnect(firstTime: Bool) {
        sparkplug?.connectReachedBroker()
        warnOfNoRetain()
        noteALPN()
        counters.connections(up: 1)
        hostLink?.connected()
        isCountedUp = true
        context.control.noteConnected(firstTime: firstTime && isInitial, of: context.connectionCount)
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
        let connackAt = MonotonicClock.now()
        if planned == nil { lifecycleConnected(now: connackAt) }
        scheduleRenewal(connectedAt: connackAt)
        if let dropped = droppedBy {
            droppedBy = nil
            context.control.recoveries.withLock { $0[dropped.stage, default: (0, [])].back.append(Double(connackAt &- dropped.at) / 1e9) }
        }
        if logsEvents { context.control.logger.info(firstTime ? "connected" : "reconnected", metadata) }
        // Before any telemetry: the device is there, and what it has; after every CONNACK the
        // subscriptions, which a clean session forgets.
        for (index, role) in roles.enumerated() { perform(role.connected(now: MonotonicClock.now()), of: index) }
        let now = MonotonicClock.now()
        telemetry.connected(now: now)
        for device in devices {
            device.connectionCameUp()
            if !device.hasStarted { device.start(now: now) }
        }
        telemetry.flush()
        publishStatesAtConnect(now: now)
        telemetry.wakeSleepers()
    }

    func driverWillDisconnect() -> ReasonCode {
        disconnectReason = .success
        for (index, role) in roles.enumerated() { perform(role.disconnecting(farewell), of: index) }
        return disconnectReason
    }

    func driverAwaitsAcknowledgements() -> Bool {
        !telemetry.inFlight.isEmpty || !asideAwaitingAcknowledgement.isEmpty
    }

    func driverDidLoseConnection(reason: String) {
        // libmosquitto resends them on the next connection, whose close waits for what it has.
        asideAwaitingAcknowledgement.removeAll()
        // Down by a fault, not waiting for a primary host: the ticks follow the offline policy
        // until the next CONNACK, whose node waits for the host again.
        holdsDataUntilBirths = false
        sparkplugNodeDied()
        counters.connections(up: -1)
        // A stage's `disconnect: all` drops it on purpose: counted apart from the errors, and
        // from its host's losses.
        hostLink?.down(lost: droppedBy == nil)
        isCountedUp = false
        context.control.connectionLost(reason, logged: logsEvents, onPurpose: droppedBy != nil)
        if logsEvents { context.control.logger.log(droppedBy != nil ? .info : .warning, reason, metadata) }
    }

    func driverAttemptFailed(_ failure: AttemptFailure) {
        if failure.refusal != nil || failure.unansweredByBroker { sparkplug?.connectReachedBroker() }
        standing.attemptFailed()
        attemptHasFailed = true
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
        if let refusal = failure.refusal, refusal.refusesCredentials, !credentialsRefused, isInitial {
            credentialsRefused = true
            context.control.noteCredentialsRefused(failure.reason, of: context.connectionCount)
        }
    }

    /// A cluster's next host: its messages count there from now on.
    func driverWillFailOver(from: BrokerAddress, to: BrokerAddress) {
        if let counters = hostLink?.failOver(to: to) { telemetry.count(on: counters, host: plan.options.hosts.firstIndex(of: to) ?? 0) }
        if logsEvents { context.control.logger.info("the next attempt goes to \(to), the cluster's next host", metadata) }
    }

    /// Not after credentials refused, before any were accepted: a run they all were ends with
    /// exit 3, and the retries of one refused among many would repeat its warning in other words.
    func driverWillRetry(after delay: Double) {
        guard logsEvents, !credentialsRefused || driver.hasConnected else { return }
        context.control.logger.info("reconnecting in \(formatSeconds(delay))", metadata)
    }

    func driverDidFinish() {
        telemetry.finish()
        lifecycleTimer.cancel()
        presenceTimer.cancel()
        renewalTimer.cancel()
        rejoinTimer?.cancel()
        // A clean DISCONNECT loses nothing: counted down here (the run's end has read its
        // figure by then; a retired connection's group has one fewer up now).
        if isCountedUp { counters.connections(up: -1) }
        hostLink?.down(lost: false)
        isCountedUp = false
        context.control.connectionFinished()
        let successor = whenFinished
        whenFinished = nil
        successor?()
    }

    func driverDidPause(wasConnected: Bool) {
        if wasConnected, isCountedUp { counters.connections(up: -1) }
        hostLink?.down(lost: false)
        isCountedUp = false
        if logsEvents, !standing.isReconnecting { context.control.logger.info("paused", metadata) }
    }
}

extension DeviceConnection {
    func client(_ client: Client, didDisconnect error: MosquittoError?) {
        driver.closed(error, stable: !telemetry.lossSuspectsQoS2(error))
    }

    /// A PUBACK, PUBCOMP or PUBREC with a refusal or not; for QoS 0, a write. A message beside
    /// the telemetry's is warned about once per refusal. A DISCONNECT waiting for the last goes out.
    func client(_ client: Client, didPublish messageID: Int32, reasonCode: ReasonCode) {
        if !asideAwaitingAcknowledgement.isEmpty, let aside = asideAwaitingAcknowledgement.removeValue(forKey: messageID) {
            if reasonCode.isFailure { warnOnce("\(aside.what): the broker refused the message on '\(aside.topic)': \(reasonCode)") }
            if !driverAwaitsAcknowledgements() { driver.quiet() }
            return
        }
        guard telemetry.acknowledged(messageID, reasonCode: reasonCode) else { return }
        if !driverAwaitsAcknowledgements() { driver.quiet() }
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
            if logsEvents { context.control.logger.debug("ALPN: the broker chose \(chosen)", metadata) }
        } else {
            warnOnce(
                "the broker chose none of the ALPN protocols offered (tls.alpn: \(asked.joined(separator: ", "))): "
                    + "it does not speak ALPN, and a broker that needs it would have refused", key: "alpn")
        }
    }

    func client(_ client: Client, didSubscribe messageID: Int32, grantedQoS: [Int32]) {
        for (index, var subscription) in subscriptions {
            guard let suback = subscription.acknowledged(messageID, grantedQoS: grantedQoS) else { continue }
            subscriptions[index] = subscription
            perform(roles[index].subscribed(suback, now: MonotonicClock.now()), of: index)
            return
        }
    }

    /// A command for one of the devices, or Home Assistant's birth message: the first role whose
    /// message it is takes it. One no role takes, on a topic none of the subscriptions match, a
    /// broker rewrote (an NCMD of RabbitMQ 3.10): counted and said.
    func client(_ client: Client, didReceive message: ReceivedMessage) {
        for (index, role) in roles.enumerated() {
            guard let actions = role.received(message, connected: isConnected, now: MonotonicClock.now()) else { continue }
            perform(actions, of: index)
            return
        }
        let filters = subscriptions.sorted { $0.key < $1.key }.flatMap { $0.value.filters.map(\.key) }
        guard let warning = UnmatchedTopic.warning(topic: message.topic, filters: filters) else { return }
        telemetry.counters.add(.unmatched)
        warnOnce(warning + "; it is ignored, and counted as unmatched", key: "unmatched topic")
    }
}
