import MQTT

/// Home Assistant discovery: each device's entity configs (retained, QoS 1) after the first
/// CONNACK, again with the devices' states whenever Home Assistant says it has started (its
/// birth message on `<prefix>/status`), and the empty retained messages that delete the entities
/// when the devices leave for good.
final class DiscoveryRole: ConnectionRole {
    private let devices: [DevicePlan]
    /// The telemetry's QoS, which a state sent again keeps.
    private let qos: QoS
    /// Where Home Assistant announces itself.
    let statusTopic: String
    /// Whether the devices' entities were announced (after the first CONNACK), and not deleted.
    private(set) var hasAnnounced = false

    init?(devices: [DevicePlan], qos: QoS) {
        guard let statusTopic = devices.lazy.compactMap(\.discovery).first?.statusTopic else { return nil }
        self.devices = devices
        self.qos = qos
        self.statusTopic = statusTopic
    }

    func connected(now: UInt64) -> [RoleAction] {
        [.subscribe([statusTopic], .atMostOnce)] + (hasAnnounced ? [] : announce(withStates: false))
    }

    func subscribed(_ suback: Subscriptions.Suback, now: UInt64) -> [RoleAction] {
        suback.refusal.map { [.warnOnce("discovery: \($0): Home Assistant's restarts go unnoticed")] } ?? []
    }

    /// Home Assistant's birth message: it has started again, and asks for the configs and the
    /// current states.
    func received(_ message: ReceivedMessage, connected: Bool, now: UInt64) -> [RoleAction]? {
        guard message.topicBytes.elementsEqual(statusTopic.utf8) else { return nil }
        guard connected, message.payload.elementsEqual("online".utf8) else { return [] }
        return announce(withStates: true)
    }

    func disconnecting(_ farewell: Farewell) -> [RoleAction] {
        farewell == .leaving ? delete() : []
    }

    func retiring(_ driver: DriverStanding) -> [RoleAction] {
        guard hasAnnounced else { return [] }
        switch driver {
        case .connected:
            return []  // the DISCONNECT's last words delete them
        case .pausing:
            // The pause's `offline` is out, its DISCONNECT waits for the acknowledgements: the
            // socket is open still.
            return delete()
        case .disconnected:
            return [
                .warnOnce(
                    "discovery: devices left the fleet while disconnected: their Home Assistant entities stay, unavailable",
                    key: "discovery: retired offline")
            ]
        }
    }

    /// The configs, and with `withStates` each device's last payload again. A retained state is
    /// on the broker already; sent again, it would be a duplicate.
    private func announce(withStates: Bool) -> [RoleAction] {
        hasAnnounced = true
        var actions: [RoleAction] = []
        for (index, device) in devices.enumerated() {
            guard let discovery = device.discovery else { continue }
            for config in discovery.configs {
                actions.append(.publish(AsideMessage(topic: config.topic, payload: config.payload, retain: true, what: "discovery")))
            }
            if withStates, !device.retain { actions.append(.republishLastState(device: index)) }
        }
        return actions
    }

    /// The devices leave Home Assistant for good: the empty retained configs that delete their
    /// entities, and empty retained messages that clear what their topics kept.
    private func delete() -> [RoleAction] {
        hasAnnounced = false
        var topics: [String] = []
        for device in devices {
            guard let discovery = device.discovery else { continue }
            topics += discovery.removals.map(\.topic)
            // Every topic its telemetry kept: the device's, or each field's in the per-field style.
            if device.retain { topics += device.fieldTopics.isEmpty ? [device.topic] : device.fieldTopics }
            if let availability = device.availability { topics.append(availability.topic) }
        }
        return topics.map { .publish(AsideMessage(topic: $0, payload: [], retain: true, what: "discovery")) }
    }
}
