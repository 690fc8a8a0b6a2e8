import MQTT
import Mosquitto
import Reactor
import Signals

/// What a Sparkplug edge node's role asks for, carried out with the node's numbers and its
/// devices' payloads: births, its death, a DCMD's writes and their DDATA.
extension DeviceConnection {
    func perform(_ action: RoleAction.Sparkplug) {
        guard let sparkplug else { return }
        switch action {
        case .births:
            guard isConnected else { return }
            let now = MonotonicClock.now()
            let wallClock = WallTime.now().secondsSinceEpoch
            let born = publishAside(
                AsideMessage(
                    topic: sparkplug.topic.topic(.nodeBirth), payload: sparkplug.birth(timestamp: DeviceSignals.milliseconds(wallClock)),
                    qos: .atMostOnce, retain: false, what: "sparkplug"))
            if born { sparkplug.notePublished(beside: true) }
            for device in devices {
                context.payload.removeAll()
                device.encodeSparkplugBirth(now: now, wallClock: wallClock, into: &context.payload)
                // A device's DBIRTH is its state, as Home Assistant's at a CONNACK.
                if publishSequenced(sparkplug.topic.topic(.deviceBirth, device: device.plan.id)) { counters.add(.stateMessages) }
            }
        case .death:
            // QoS 0: the DISCONNECT right behind it need wait for no acknowledgement.
            publishAside(
                AsideMessage(
                    topic: sparkplug.topic.topic(.nodeDeath), payload: sparkplug.death(), qos: .atMostOnce, retain: false, what: "sparkplug"
                ))
        case .write(let index, let writes, let arrivedAt):
            write(writes, to: index, arrivedAt: arrivedAt)
        }
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
        guard isConnected else { return }
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
