import MQTT
import Mosquitto
import Reactor
import Report

/// The QoS 1/2 window: messages in flight, their acknowledgements, refusals and timeouts, the
/// broker's Receive Maximum, and a broker that breaks QoS 2.
extension Telemetry {
    /// The messages still unacknowledged, by the device that published each: at the run's end,
    /// what the verifier cannot count as lost (`Verifier.Stream.unconfirmed`).
    var unacknowledgedBySender: [ObjectIdentifier: Int] {
        inFlight.messages.values.reduce(into: [:]) { $0[ObjectIdentifier($1.sender), default: 0] += 1 }
    }

    func markInFlight(_ messageID: Int32, device: Device) {
        let now = MonotonicClock.now()
        inFlight.add(messageID, from: device, at: now)
        counters.add(.inFlight)
        if let ackWatch, !ackTimer.isScheduled { ackTimer.schedule(at: now &+ ackWatch.limit) }
    }

    /// Counts the messages that have waited `ackTimeout` since their publish, each once, and
    /// with `onAckTimeout: reconnect` drops a connection on which one has waited that long
    /// since it was sent on it; then watches for the next that can time out. An acknowledgement
    /// cancels nothing: the watch finds the message gone.
    func checkAcknowledgements(now: UInt64) {
        guard let ackWatch, let ackTimeout = plan.ackTimeout else { return }
        let finding = inFlight.examine(with: ackWatch, now: now, connected: driver.isConnected)
        if finding.timedOut > 0 {
            counters.add(.ackTimeouts, finding.timedOut)
            context.control.noteAckTimeouts(finding.timedOut)
        }
        if finding.overdue {
            driver.abandon(
                because: "connection lost: no acknowledgement within \(formatSeconds(ackTimeout.limit)) (onAckTimeout: reconnect)")
        } else if let next = finding.next {
            ackTimer.schedule(at: next)
        }
    }

    /// At each CONNACK: the window no larger than the broker's Receive Maximum; the messages
    /// libmosquitto resends start their wait on this connection again.
    func connected(now: UInt64) {
        inFlight.keep(toReceiveMaximum: client.brokerLimits.receiveMaximum)
        guard ackWatch != nil, !inFlight.isEmpty else { return }
        inFlight.restartWaits(at: now)
        checkAcknowledgements(now: now)
    }

    /// Errors with which `mosquitto_publish` still keeps a QoS 1/2 message for resending.
    static func keepsMessage(_ error: MosquittoError) -> Bool {
        error == .connectionLost || error == .errno || error == .noConnection
    }

    /// A PUBACK, PUBCOMP or PUBREC, with a refusal or not, for one of the ticks or a message
    /// beside them; for QoS 0, a write. Whether it was one of theirs.
    func acknowledged(_ messageID: Int32, reasonCode: ReasonCode) -> Bool {
        if !besideAwaitingAcknowledgement.isEmpty, let beside = besideAwaitingAcknowledgement.removeValue(forKey: messageID) {
            if reasonCode.isFailure { warnOnce("\(beside.what): the broker refused the message on '\(beside.topic)': \(reasonCode)") }
            return true
        }
        // QoS 0 reports writes, not acknowledgements; an id not in flight is not ours to count.
        guard qos.isAcknowledged, let message = inFlight.remove(messageID) else { return false }
        qos2Guard.acknowledged()
        counters.add(.inFlight, -1)
        if reasonCode.isFailure {
            refused(message, reasonCode)
        } else {
            context.latency.record(MonotonicClock.now() &- message.wait.publishedAt)
            counters.add(.acknowledged)
        }
        return true
    }

    /// The broker refused a QoS 1/2 message (its PUBACK or PUBREC has a reason code of 0x80 or
    /// more): counted as refused, by reason, not acknowledged; said once per reason, with the topic.
    private func refused(_ message: InFlightWindow<Device>.Message, _ reason: ReasonCode) {
        counters.refuse(reason)
        message.sender.noteRefused()
        warnOnce(
            "publish refused by the broker: \(reason), first on topic '\(message.sender.plan.topic)' "
                + "(counted as refused, not acknowledged)", key: "publish refused: \(reason.hex)")
    }

    /// A connection lost with `error`: whether the loss is one of a broker that breaks QoS 2
    /// (`QoS2Guard`), which keeps the backoff growing. When the guard names the broker, the
    /// messages libmosquitto holds for resending count as failed, and so do this connection's
    /// QoS 2 messages from then on.
    func lossSuspectsQoS2(_ error: MosquittoError?) -> Bool {
        let verdict = qos2Guard.connectionLost(
            wasUp: driver.isConnected, protocolError: error == .protocol, awaitingCompletion: !inFlight.isEmpty)
        guard verdict == .brokerBreaksQoS2 else { return verdict == .suspect }
        mustDiscardLibraryQueue = true
        context.control.warnOnce(
            Telemetry.qos2Failure + ": connections were lost with a protocol error right after "
                + "QoS 2 publishes, \(qos2Guard.lossesInARow) times in a row (RabbitMQ 3.10 answers them with PUBACK); "
                + "the QoS 2 messages of device group '\(plan.devices.first?.group ?? "")' count as failed: use qos: 1 with this broker",
            key: Telemetry.qos2Failure, host: client.options.host, port: client.options.port)
        for message in inFlight.removeAll() {
            message.sender.notePublishFailed()
            counters.add(.published, -1)
            counters.add(.inFlight, -1)
            counters.add(.failed)
            context.control.count(Telemetry.qos2Failure)
        }
        return true
    }

    static let qos2Failure = "publish failed: the broker does not handle QoS 2"
}
