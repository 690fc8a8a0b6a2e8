import MQTT
import Reactor
import Signals

/// What the edge node says with its devices' payloads: births, deaths, a DCMD's writes and their
/// DDATA; and which of its devices' data waits.
extension SparkplugEdgeNodeRole {
    /// The NBIRTH, then every device's DBIRTH: the devices' data goes out from then on. Whether
    /// libmosquitto took the NBIRTH.
    @discardableResult
    func publishBirths(_ context: any RoleContext) -> Bool {
        guard context.isConnected else { return false }
        let wallClock = context.wallClock
        // seq 0, which it writes itself: the births that follow it count on from 1.
        let born = context.publish(
            OutboundMessage(topic: topic.topic(.nodeBirth), qos: .atMostOnce, retain: false, what: name),
            payload: sequencer.birth(timestamp: DeviceSignals.milliseconds(wallClock)))
        if born { sequencer.notePublished(beside: true) }
        // The devices in: under `devices` stages, the others' come as the stages bring them.
        for index in roster.births(in: devicesIn(at: context.now, context)) { publishBirth(of: index, context) }
        noteHolds(context)
        followPresence(context)
        if holdsData {
            if let hostID { context.logEvent("sparkplug: primary host '\(hostID)' is online: births published") }
            hold(false, context)
        }
        return born
    }

    /// The devices' data waits for the births, or goes on (what the queue held first).
    func hold(_ held: Bool, _ context: any RoleContext) {
        holdsData = held
        context.holdTelemetry(held)
    }

    /// The node's births no longer hold (its NDEATH, a lost connection, a wait for its primary
    /// host): no device is born until its next births.
    func nodeDied(_ context: any RoleContext) {
        roster.nodeDied()
        noteHolds(context)
    }

    /// `devices` stages brought devices of the node in or took them out while it stays: the
    /// DDEATH of each that left, the DBIRTH of each that came back, while its births are out. Not
    /// once the node itself is out (its first device), whose NDEATH says the rest.
    func devicesTurned(now: UInt64, _ context: any RoleContext) {
        guard context.isTicking(at: now), context.standing != .ended else { return }
        followPresence(context)
        let isIn = devicesIn(at: now, context)
        guard isIn.first ?? true, context.isConnected else { return }
        let (deaths, births) = roster.turned(in: isIn)
        for index in deaths { publishDeath(of: index, context) }
        for index in births { publishBirth(of: index, context) }
        noteHolds(context)
    }

    /// Which of the node's devices the stages have in at `now`: every one without `devices`
    /// stages.
    private func devicesIn(at now: UInt64, _ context: any RoleContext) -> [Bool] {
        let t = context.secondsIntoRun(now)
        return plans.map { $0.profile?.presence?.isIn(at: t) ?? true }
    }

    /// Its timer at the next moment a device of the node joins or leaves under `devices` stages;
    /// a nanosecond past it, so that the presence has changed when the timer fires.
    private func followPresence(_ context: any RoleContext) {
        let t = context.secondsIntoRun(context.now)
        guard let next = plans.compactMap({ $0.profile?.presence?.nextChange(after: t)?.at }).min() else { return }
        if presenceTimer == nil { presenceTimer = context.makeTimer(for: self) }
        presenceTimer?.schedule(at: context.instant(secondsIntoRun: next) &+ 1)
    }

    /// Tells each device whether its data waits for its DBIRTH (`SparkplugDeviceRoster.holdsData`).
    private func noteHolds(_ context: any RoleContext) {
        for index in plans.indices { context.hold(device: index, roster.holdsData(of: index)) }
    }

    /// A device's DBIRTH, every metric: its state, as Home Assistant's at a CONNACK.
    private func publishBirth(of index: Int, _ context: any RoleContext) {
        scratch.clear()
        sources[index].writeBirth(TickTime(elapsed: context.elapsed(of: index), wallClock: context.wallClock), into: &scratch.payload)
        if publishSequenced(topic.topic(.deviceBirth, device: plans[index].id), context) { context.counters.add(.stateMessages) }
    }

    /// A device's DDEATH: its timestamp and the node's seq, QoS 0 (3.0, 6.4.x "DDEATH").
    private func publishDeath(of index: Int, _ context: any RoleContext) {
        scratch.clear()
        SparkplugWriter.writeTimestamp(DeviceSignals.milliseconds(context.wallClock), into: &scratch.payload)
        _ = publishSequenced(topic.topic(.deviceDeath, device: plans[index].id), context)
    }

    /// The scratch payload with the node's next seq, published at QoS 0 on `topic`; whether
    /// libmosquitto took it.
    private func publishSequenced(_ topic: String, _ context: any RoleContext) -> Bool {
        scratch.payload.withBytes {
            context.publish(OutboundMessage(topic: topic, qos: .atMostOnce, retain: false, what: name, stamped: true), payload: $0)
        }
    }

    /// A DCMD, carried out all or not at all, and answered with the device's DDATA: counted once
    /// as received, once as applied or rejected, and once as answered when the DDATA went out.
    func write(_ writes: Result<[(field: String, value: CommandValue)], CommandRejection>, to index: Int, _ context: any RoleContext) {
        let arrivedAt = context.now
        let counters = context.counters
        counters.commandReceived()
        var rejection: CommandRejection?
        do {
            var command = DeviceCommand()
            command.assignments = try writes.get()
            try context.take(command, device: index)
        } catch {
            rejection = error
        }
        counters.commandDone(applied: rejection == nil)
        if let rejection {
            return context.warnOnce(
                "sparkplug: a DCMD rejected: \(rejection.reason) (first on device '\(plans[index].id)')",
                key: "sparkplug rejected: \(rejection.kind)")
        }
        // Not before the births, nor while the device is dead: the write holds, and the
        // births that come say it.
        guard context.isConnected, !holdsData, !roster.holdsData(of: index) else { return }
        scratch.clear()
        sources[index].writeState(TickTime(elapsed: context.elapsed(of: index), wallClock: context.wallClock), into: &scratch)
        if !scratch.messages.isEmpty, publishSequenced(plans[index].topic, context) { counters.commandAnswered() }
        context.recordCommandLatency(context.now &- arrivedAt)
    }

    /// A DCMD's metrics as writes to the device's fields (a metric `location/lat` is field
    /// `location.lat`), by name or by the alias its DBIRTH gave; or why they cannot be.
    func writes(_ payload: SparkplugPayload, of device: Int) -> Result<[(field: String, value: CommandValue)], CommandRejection> {
        guard !payload.metrics.isEmpty else { return .failure(CommandRejection("a DCMD without metrics writes nothing")) }
        var writes: [(field: String, value: CommandValue)] = []
        for metric in payload.metrics {
            let names = metricNames[device]
            let byAlias = metric.alias.flatMap { alias in
                alias >= firstAliases[device] && alias - firstAliases[device] < UInt64(names.count)
                    ? names[Int(alias - firstAliases[device])] : nil
            }
            guard let name = metric.name ?? byAlias else {
                return .failure(
                    CommandRejection(
                        "a DCMD metric's alias \(metric.alias.map(String.init) ?? "(none)") is none of the device's",
                        kind: "a DCMD names no metric of the device"))
            }
            guard let value = metric.value.flatMap(Self.commandValue) else {
                return .failure(
                    CommandRejection(
                        "a DCMD writes '\(name)' with no value devsim can read (a number, boolean or string; an integer with its datatype)",
                        kind: "a DCMD metric has no value"))
            }
            writes.append((name.replacing("/", with: "."), value))
        }
        return .success(writes)
    }

    private static func commandValue(_ value: SparkplugValue) -> CommandValue? {
        switch value {
        case .int(let number): .number(Double(number))
        case .uint(let number): .number(Double(number))
        case .float(let number): .number(Double(number))
        case .double(let number): .number(number)
        case .bool(let flag): .bool(flag)
        case .string(let text): .text(text)
        case .bytes: nil
        }
    }
}
