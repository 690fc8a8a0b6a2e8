import MQTT
import Mosquitto
import Reactor
import Report

/// What the driver and the client report: the connection up, lost, paused or finished; SUBACKs,
/// acknowledgements, messages and room to write.
extension DeviceConnection {
    func driverWillConnect() throws(ClientSetupError) {
        if mustDiscardLibraryQueue {
            try client.discardQueuedMessages()
            mustDiscardLibraryQueue = false
        }
    }

    func driverDidConnect(firstTime: Bool) {
        keepToBrokerLimits()
        counters.connections(up: 1)
        isCountedUp = true
        context.control.noteConnected(firstTime: firstTime && isInitial, of: context.connectionCount)
        // A resume is not a connection coming back after a loss.
        if !firstTime, !standing.isPausedOrAway { counters.add(.reconnects) }
        standing.connected()
        carryOut(.none)
        let connackAt = MonotonicClock.now()
        lifecycleConnected(now: connackAt)
        if let dropped = droppedBy {
            droppedBy = nil
            context.control.recoveries.withLock { $0[dropped.stage, default: (0, [])].back.append(Double(connackAt &- dropped.at) / 1e9) }
        }
        if logsEvents { context.control.logger.info(firstTime ? "connected" : "reconnected", metadata) }
        // Before any telemetry: the device is there, and what it has; after every CONNACK the
        // subscriptions, which a clean session forgets.
        for (index, role) in roles.enumerated() { perform(role.connected(now: MonotonicClock.now()), of: index) }
        let now = MonotonicClock.now()
        restartAcknowledgementWaits(now: now)
        for device in devices {
            device.connectionCameUp()
            if !device.hasStarted { device.start(now: now) }
        }
        flush()
        publishStatesAtConnect(now: now)
        wakeSleepers()
    }

    func driverWillDisconnect() {
        for (index, role) in roles.enumerated() { perform(role.disconnecting(farewell), of: index) }
    }

    func driverAwaitsAcknowledgements() -> Bool {
        !inFlight.isEmpty || !asideAwaitingAcknowledgement.isEmpty
    }

    func driverDidLoseConnection(reason: String) {
        // libmosquitto resends them on the next connection, whose close waits for what it has.
        asideAwaitingAcknowledgement.removeAll()
        counters.connections(up: -1)
        isCountedUp = false
        // A stage's `disconnect: all` drops it on purpose: counted apart from the errors.
        context.control.connectionLost(reason, logged: logsEvents, onPurpose: droppedBy != nil)
        if logsEvents { context.control.logger.log(droppedBy != nil ? .info : .warning, reason, metadata) }
    }

    func driverAttemptFailed(_ failure: AttemptFailure) {
        standing.attemptFailed()
        let speaksMQTT5 = client.options.protocolVersion == .v5
        context.control.connectionFailed(
            failure.reason + (failure.unansweredByBroker && speaksMQTT5 ? AttemptFailure.mqtt5Hint : ""),
            host: plan.options.host, port: plan.options.port)
        if let refusal = failure.refusal, refusal.refusesCredentials, !credentialsRefused, isInitial {
            credentialsRefused = true
            context.control.noteCredentialsRefused(failure.reason, of: context.connectionCount)
        }
    }

    func driverWillRetry(after delay: Double) {
        if logsEvents { context.control.logger.info("reconnecting in \(formatSeconds(delay))", metadata) }
    }

    func driverDidFinish() {
        ackTimer.cancel()
        lifecycleTimer.cancel()
        presenceTimer.cancel()
        // A clean DISCONNECT loses nothing: counted down here (the run's end has read its
        // figure by then; a retired connection's group has one fewer up now).
        if isCountedUp { counters.connections(up: -1) }
        isCountedUp = false
        context.control.connectionFinished()
        let successor = whenFinished
        whenFinished = nil
        successor?()
    }

    func driverDidPause(wasConnected: Bool) {
        if wasConnected, isCountedUp { counters.connections(up: -1) }
        isCountedUp = false
        if logsEvents { context.control.logger.info("paused", metadata) }
    }
}

extension DeviceConnection {
    func client(_ client: Client, didDisconnect error: MosquittoError?) {
        driver.closed(error, stable: !lossSuspectsQoS2(error))
    }

    func client(_ client: Client, didPublish messageID: Int32, reasonCode: ReasonCode) {
        acknowledged(messageID, reasonCode: reasonCode)
    }

    func clientCanWrite(_ client: Client) {
        flush()
        wakeSleepers()
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
    /// message it is takes it.
    func client(_ client: Client, didReceive message: ReceivedMessage) {
        for (index, role) in roles.enumerated() {
            guard let actions = role.received(message, connected: isConnected, now: MonotonicClock.now()) else { continue }
            perform(actions, of: index)
            return
        }
    }
}
