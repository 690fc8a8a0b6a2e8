import MQTT
import Mosquitto
import Reactor
import Report
import Signals

/// What the roles ask for, carried out: messages beside the telemetry, subscriptions, commands,
/// the devices' states.
extension DeviceConnection {
    func perform(_ actions: [RoleAction], of role: Int) {
        for action in actions {
            switch action {
            case .publish(let message):
                publishAside(message)
            case .republishLastState(let index):
                // None once dismantled: the roles' indices are the plan's devices.
                guard devices.indices.contains(index) else { continue }
                let device = devices[index]
                if !device.lastPayload.isEmpty,
                    publishAside(
                        AsideMessage(topic: device.plan.topic, payload: device.lastPayload, qos: qos, retain: false, what: "discovery"))
                {
                    counters.add(.stateMessages)
                }
            case .subscribe(let filters, let qos):
                var subscription = Subscriptions(filters, qos: qos)
                for problem in subscription.subscribe(with: client) { warnOnce("\(roleName(role)): " + problem) }
                subscriptions[role] = subscription
            case .carryOut(let command):
                carryOut(command)
            case .warnOnce(let message, let key):
                warnOnce(message, key: key)
            case .subscribeLatency(let nanoseconds):
                context.subscribeLatency.record(nanoseconds)
            case .sparkplug(let action):
                perform(action)
            }
        }
    }

    /// The prefix of a role's words: what a subscription problem is for.
    private func roleName(_ role: Int) -> String {
        switch roles[role] {
        case is DiscoveryRole: "discovery"
        case is CommandRole: "commands"
        case is SparkplugRole: "sparkplug"
        default: "availability"
        }
    }

    /// A message beside the telemetry, warned about once per reason when libmosquitto refuses
    /// it; whether it took it. A DISCONNECT waits for its acknowledgement.
    @discardableResult
    func publishAside(_ message: AsideMessage) -> Bool {
        let (messageID, error) = message.payload.withUnsafeBytes {
            client.publish(topic: Topic(message.topic), payload: $0, qos: message.qos, retain: message.retain)
        }
        if let error {
            warnOnce(
                "\(message.what): cannot publish to '\(message.topic)': \(telemetry.publishFailure(error, payload: message.payload.count))",
                key: "\(message.what): \(error)")
            return false
        }
        if message.qos.isAcknowledged { asideAwaitingAcknowledgement[messageID] = (message.topic, message.what) }
        return true
    }

    /// A device a dashboard shows (`discovery`, `availability`, `commands`) says its state at each
    /// CONNACK, as Tasmota and Zigbee2MQTT do, rather than up to a publish interval later: after
    /// what the queue held, so that it is the last word. Its schedule keeps its phase; where a tick
    /// falls at the CONNACK that tick is the state. Not ticks: counted as `stateMessages`.
    func publishStatesAtConnect(now: UInt64) {
        guard context.control.isDue(now) else { return }
        for device in devices where device.plan.saysStateAtConnect(tickIsDue: device.tickIsDue(by: now)) {
            device.encodeState(now: now)
            counters.add(.stateMessages, publishState(of: device, what: "state"))
        }
    }

    /// A command, checked and carried out all or not at all, then answered: the device's state at
    /// once on its topic, and for a request its reply (the state, or `{"error": reason}`): on an
    /// MQTT 5 request's response topic with its correlation data, or on the `response` topic
    /// under its `{requestId}`.
    /// Counted once as received, once as applied or rejected, and once as answered when any of
    /// its answer's messages went out; a rejection is logged once per reason and never stops the
    /// schedule.
    private func carryOut(_ request: RoleAction.Command) {
        guard devices.indices.contains(request.device) else { return }
        counters.commandReceived()
        let device = devices[request.device]
        guard let plan = device.plan.commands?.route(for: request.topic) else { return }
        var command: DeviceCommand?
        var rejection: CommandRejection?
        do {
            let parsed = try DeviceCommand.parse(topic: request.topic, payload: request.payload, plan: plan)
            command = parsed
            try device.take(parsed, now: request.arrivedAt)
        } catch {
            rejection = error
        }
        counters.commandDone(applied: rejection == nil)
        if let rejection {
            warnOnce("commands: rejected: \(rejection.reason) (first on '\(request.topic)')", key: "command rejected: \(rejection.kind)")
        }
        guard isConnected else { return }
        let reply: (topic: String, correlation: [UInt8]?)? =
            request.replyTo
            ?? (command?.requestID ?? plan.requestID(inQueryOf: request.topic)).flatMap { id in
                plan.response.map {
                    ($0.replacingRequestID(id, status: rejection.map { $0.namesNoCommandedField ? 404 : 400 } ?? 200), nil)
                }
            }
        var answered = false
        if rejection == nil {
            device.encodeState(now: MonotonicClock.now())
            let perField = device.statePieces != nil
            let state = perField ? context.payload.bytes : []
            answered = publishState(of: device, what: "commands") > 0
            if perField {
                // A reply is one object.
                context.payload.removeAll()
                context.payload.append(contentsOf: device.statePiecesAsObject(state))
            }
            if let reply, answer(reply.topic, retain: false, correlation: reply.correlation) { answered = true }
            context.commandLatency.record(MonotonicClock.now() &- request.arrivedAt)
        } else if let reply, let rejection {
            context.payload.removeAll()
            context.payload.append(contentsOf: Array("{\"error\":\(JSONText.quoted(rejection.reason))}".utf8))
            answered = answer(reply.topic, retain: false, correlation: reply.correlation)
        }
        // One command, one answer, however many messages it took: the state (a message a field
        // in the per-field style) and the reply.
        if answered { counters.commandAnswered() }
    }

    /// The device's state, which `encodeState` left in the loop's payload buffer, published beside
    /// the schedule on its topic, or a message a field on theirs as the ticks publish them; how
    /// many messages libmosquitto took. `what` names it in a warning.
    private func publishState(of device: Device, what: String) -> Int {
        var sent = 0
        if let pieces = device.statePieces {
            let state = context.payload.bytes
            for (field, bytes) in pieces {
                context.payload.removeAll()
                context.payload.append(contentsOf: Array(state[bytes]))
                if answer(device.plan.fieldTopics[field], retain: device.plan.retain, what: what, properties: device.properties) {
                    sent += 1
                }
            }
        } else {
            let inWindow = context.payload.withBytes { device.claimsWindow($0) }
            guard answer(device.plan.topic, retain: device.plan.retain, what: what, properties: device.properties) else { return 0 }
            sent = 1
            device.notePublished(inWindow: inWindow)  // on the device's topic: what --verify expects there
            if discovery != nil { context.payload.withBytes { device.keepLastPayload($0) } }
        }
        if sent > 0 { device.markSent(at: device.elapsed(at: MonotonicClock.now())) }
        return sent
    }

    /// The loop's payload buffer, published beside the schedule (a command's answer, a state);
    /// whether libmosquitto took it. A DISCONNECT waits for its acknowledgement as for the other
    /// messages beside the telemetry. A state on the device's own topics carries its group's
    /// `properties` (`properties`), as its ticks there do: a reader that goes by them must not
    /// find one message of the stream without.
    private func answer(
        _ topic: String, retain: Bool, correlation: [UInt8]? = nil, what: String = "commands", properties: PropertyList? = nil
    ) -> Bool {
        let (messageID, error) = context.payload.withBytes { payload in
            if let correlation { return client.publish(topic: Topic(topic), payload: payload, qos: qos, correlationData: correlation) }
            if let properties { return telemetry.publish(topic: Topic(topic), payload: payload, retain: retain, properties: properties) }
            return client.publish(topic: Topic(topic), payload: payload, qos: qos, retain: retain)
        }
        if let error {
            warnOnce(
                "\(what): cannot publish the state on '\(topic)': \(telemetry.publishFailure(error, payload: context.payload.count))",
                key: "\(what) state: \(error)")
            return false
        }
        if qos.isAcknowledged { asideAwaitingAcknowledgement[messageID] = (topic, what) }
        return true
    }
}
