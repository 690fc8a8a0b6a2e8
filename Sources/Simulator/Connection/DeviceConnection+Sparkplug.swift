import MQTT
import Mosquitto
import Reactor
import Report
import Signals

/// What a Sparkplug edge node's role asks for, carried out with the node's numbers and its
/// devices' payloads: births, its death, a DCMD's writes and their DDATA, an NCMD's rebirth.
extension DeviceConnection {
    func perform(_ action: RoleAction.Sparkplug) {
        guard let sparkplug else { return }
        switch action {
        case .births:
            publishBirths()
        case .awaitHost:
            if logsEvents, let host = plan.sparkplug?.primaryHost {
                context.control.logger.info("sparkplug: waiting for primary host '\(host)' to be online", metadata)
            }
            holdsDataUntilBirths = true
            sparkplugNodeDied()
        case .leave:
            // From the moment the host is gone, not only once the node is down again.
            holdsDataUntilBirths = true
            let move = standing.reconnect(.primaryHostOffline)
            guard move != .stay else { return }
            // The NDEATH is the role's last word before the DISCONNECT (`disconnecting`); the
            // connection is made again after the reconnect delay, as after a loss.
            let delay = plan.reconnect.initial / .seconds(1)
            if logsEvents {
                context.control.logger.info(
                    "sparkplug: the primary host went offline: NDEATH, and connecting again in \(formatSeconds(delay))", metadata)
            }
            follow(move)
            rejoinTimer?.schedule(at: MonotonicClock.now() &+ MonotonicClock.nanoseconds(delay))
        case .death(let byWill):
            if byWill {
                disconnectReason = .disconnectWithWill
            } else {
                // QoS 0: the DISCONNECT right behind it need wait for no acknowledgement.
                publishAside(
                    AsideMessage(
                        topic: sparkplug.topic.topic(.nodeDeath), payload: sparkplug.death(), qos: .atMostOnce, retain: false,
                        what: "sparkplug"))
            }
            sparkplugNodeDied()
        case .write(let index, let writes, let arrivedAt):
            write(writes, to: index, arrivedAt: arrivedAt)
        case .rebirth(let now, let arrivedAt):
            rebirth(now: now, arrivedAt: arrivedAt)
        case .rejected(let rejection):
            counters.commandReceived()
            counters.commandDone(applied: false)
            warnOnce("sparkplug: \(rejection.reason)", key: "sparkplug rejected: \(rejection.kind)")
        }
    }

    /// The NBIRTH, then the DBIRTH of each device in; the devices' data goes out from then on.
    /// Whether libmosquitto took the NBIRTH.
    @discardableResult
    private func publishBirths() -> Bool {
        guard let sparkplug, isConnected else { return false }
        let now = MonotonicClock.now()
        let wallClock = WallTime.now().secondsSinceEpoch
        let born = publishAside(
            AsideMessage(
                topic: sparkplug.topic.topic(.nodeBirth), payload: sparkplug.birth(timestamp: DeviceSignals.milliseconds(wallClock)),
                qos: .atMostOnce, retain: false, what: "sparkplug"))
        if born { sparkplug.notePublished(beside: true) }
        // The devices in: under `devices` stages, the others' come as the stages bring them.
        for index in sparkplugDevices.births(in: sparkplugDevicesIn(at: now)) {
            publishBirth(of: devices[index], now: now, wallClock: wallClock)
        }
        noteSparkplugHolds()
        if holdsDataUntilBirths {
            if logsEvents { context.control.logger.info("sparkplug: the primary host is online: births published", metadata) }
            holdsDataUntilBirths = false
            telemetry.flush()
            telemetry.wakeSleepers()
        }
        return born
    }

    /// An NCMD `Node Control/Rebirth`: a command as a DCMD is, counted once as received and as
    /// applied, and as answered when the NBIRTH went out; said in a line, at info level where
    /// the connections' events are (`logsEvents`), at debug level in a fleet too big for that.
    private func rebirth(now: Bool, arrivedAt: UInt64) {
        counters.commandReceived()
        counters.commandDone(applied: true)
        let host = plan.sparkplug?.primaryHost.map { "'\($0)'" } ?? "its primary host"
        context.control.logger.log(
            logsEvents ? .info : .debug,
            "sparkplug: an NCMD asked for a rebirth: " + (now ? "births published again" : "the births wait for \(host) to be online"),
            metadata)
        guard now, publishBirths() else { return }
        counters.commandAnswered()
        context.commandLatency.record(MonotonicClock.now() &- arrivedAt)
    }

    /// `devices` stages brought devices of the node in or took them out while it stays: the
    /// DDEATH of each that left, the DBIRTH of each that came back, while its births are out.
    func sparkplugDevicesTurned(now: UInt64) {
        guard sparkplug != nil, isConnected else { return }
        let (deaths, births) = sparkplugDevices.turned(in: sparkplugDevicesIn(at: now))
        let wallClock = WallTime.now().secondsSinceEpoch
        for index in deaths { publishDeath(of: devices[index], wallClock: wallClock) }
        for index in births { publishBirth(of: devices[index], now: now, wallClock: wallClock) }
        noteSparkplugHolds()
    }

    /// The node's births no longer hold (its NDEATH, a lost connection, a wait for its primary
    /// host): no device is born until its next births.
    func sparkplugNodeDied() {
        guard sparkplug != nil else { return }
        sparkplugDevices.nodeDied()
        noteSparkplugHolds()
    }

    /// Which of the node's devices the stages have in at `now`: every one without `devices`
    /// stages.
    private func sparkplugDevicesIn(at now: UInt64) -> [Bool] {
        let t = runSeconds(now)
        return devices.map { $0.plan.profile?.presence?.isIn(at: t) ?? true }
    }

    /// Tells each device whether its data waits for its DBIRTH (`SparkplugDeviceRoster.holdsData`).
    private func noteSparkplugHolds() {
        for (index, device) in devices.enumerated() { device.holdsDataUntilBirth = sparkplugDevices.holdsData(of: index) }
    }

    /// A device's DBIRTH, every metric: its state, as Home Assistant's at a CONNACK.
    private func publishBirth(of device: Device, now: UInt64, wallClock: Double) {
        guard let sparkplug else { return }
        context.payload.removeAll()
        device.encodeSparkplugBirth(now: now, wallClock: wallClock, into: &context.payload)
        if publishSequenced(sparkplug.topic.topic(.deviceBirth, device: device.plan.id)) { counters.add(.stateMessages) }
    }

    /// A device's DDEATH: its timestamp and the node's seq, QoS 0 (3.0, 6.4.x "DDEATH").
    private func publishDeath(of device: Device, wallClock: Double) {
        guard let sparkplug else { return }
        context.payload.removeAll()
        SparkplugWriter.writeTimestamp(DeviceSignals.milliseconds(wallClock), into: &context.payload)
        _ = publishSequenced(sparkplug.topic.topic(.deviceDeath, device: device.plan.id))
    }

    /// Before each CONNECT: the NDEATH with the next bdSeq as the will.
    func setSparkplugWill() throws(ClientSetupError) {
        guard let sparkplug else { return }
        try client.setWill(sparkplug.willForNextConnection())
    }

    /// A DCMD, carried out all or not at all, and answered with the device's DDATA: counted once
    /// as received, once as applied or rejected, and once as answered when the DDATA went out.
    private func write(_ writes: Result<[(field: String, value: CommandValue)], CommandRejection>, to index: Int, arrivedAt: UInt64) {
        guard devices.indices.contains(index) else { return }
        counters.commandReceived()
        let device = devices[index]
        var rejection: CommandRejection?
        do {
            var command = DeviceCommand()
            command.assignments = try writes.get()
            try device.take(command, now: arrivedAt)
        } catch {
            rejection = error
        }
        counters.commandDone(applied: rejection == nil)
        if let rejection {
            warnOnce(
                "sparkplug: a DCMD rejected: \(rejection.reason) (first on device '\(device.plan.id)')",
                key: "sparkplug rejected: \(rejection.kind)")
            return
        }
        // Not before the births, nor while the device is dead: the write holds, and the
        // births that come say it.
        guard isConnected, !holdsDataUntilBirths, !device.holdsDataUntilBirth else { return }
        context.payload.removeAll()
        let now = MonotonicClock.now()
        if device.encodeSparkplugData(now: now, wallClock: WallTime.now().secondsSinceEpoch, into: &context.payload) > 0,
            publishSequenced(device.plan.topic)
        {
            counters.commandAnswered()
        }
        context.commandLatency.record(now &- arrivedAt)
    }

    /// The loop's payload buffer with the node's next seq, published at QoS 0 on `topic`;
    /// whether libmosquitto took it.
    private func publishSequenced(_ topic: String) -> Bool {
        guard let sparkplug else { return false }
        let (_, error) = context.payload.withBytes { payload in
            sparkplug.publish(payload, beside: true) { client.publish(topic: Topic(topic), payload: $0, qos: .atMostOnce, retain: false) }
        }
        guard let error else { return true }
        warnOnce(
            "sparkplug: cannot publish to '\(topic)': \(telemetry.publishFailure(error, payload: context.payload.count))",
            key: "sparkplug: \(error)")
        return false
    }
}
