import MQTT

/// Home Assistant discovery: each device's entity configs (retained, QoS 1) after the first
/// CONNACK, again with the devices' states whenever Home Assistant says it has started (its
/// birth message on `<prefix>/status`), and the empty retained messages that delete the entities
/// when the devices leave for good.
final class DiscoveryRole: ConnectionRole {
    let name = "discovery"
    private let devices: [DevicePlan]
    /// Where Home Assistant announces itself.
    let statusTopic: String
    /// Whether the devices' entities were announced (after the first CONNACK), and not deleted.
    private(set) var hasAnnounced = false

    init?(devices: [DevicePlan]) {
        guard let statusTopic = devices.lazy.compactMap(\.discovery).first?.statusTopic else { return nil }
        self.devices = devices
        self.statusTopic = statusTopic
    }

    func connected(_ context: any RoleContext) {
        context.subscribe([statusTopic], qos: .atMostOnce, for: self)
        if !hasAnnounced { announce(withStates: false, context) }
    }

    func subscribed(_ suback: Subscriptions.Suback, _ context: any RoleContext) {
        if let refusal = suback.refusal { context.warnOnce("discovery: \(refusal): Home Assistant's restarts go unnoticed") }
    }

    /// Home Assistant's birth message: it has started again, and asks for the configs and the
    /// current states.
    func received(_ message: ReceivedMessage, _ context: any RoleContext) -> Bool {
        guard message.topicBytes.elementsEqual(statusTopic.utf8) else { return false }
        if context.isConnected, message.payload.elementsEqual("online".utf8) { announce(withStates: true, context) }
        return true
    }

    func disconnecting(_ farewell: Farewell, _ context: any RoleContext) {
        if farewell == .leaving { delete(context) }
    }

    func retiring(_ driver: DriverStanding, _ context: any RoleContext) {
        guard hasAnnounced else { return }
        switch driver {
        case .connected:
            break  // the DISCONNECT's last words delete them
        case .pausing:
            // The pause's `offline` is out, its DISCONNECT waits for the acknowledgements: the
            // socket is open still.
            delete(context)
        case .disconnected:
            context.warnOnce(
                "discovery: devices left the fleet while disconnected: their Home Assistant entities stay, unavailable",
                key: "discovery: retired offline")
        }
    }

    /// The configs, and with `withStates` each device's state now. A retained state is on the
    /// broker already; sent again, it would be a duplicate.
    private func announce(withStates: Bool, _ context: any RoleContext) {
        hasAnnounced = true
        for (index, device) in devices.enumerated() {
            guard let discovery = device.discovery else { continue }
            for config in discovery.configs {
                context.publish(OutboundMessage(topic: config.topic, retain: true, what: name), payload: config.payload)
            }
            if withStates, !device.retain { context.counters.add(.stateMessages, context.sayState(of: index, what: name)) }
        }
    }

    /// The devices leave Home Assistant for good: the empty retained configs that delete their
    /// entities, and empty retained messages that clear what their topics kept.
    private func delete(_ context: any RoleContext) {
        hasAnnounced = false
        var topics: [String] = []
        for device in devices {
            guard let discovery = device.discovery else { continue }
            topics += discovery.removals.map(\.topic)
            // Every topic its telemetry kept: the device's, or each field's in the per-field style.
            if device.retain { topics += device.fieldTopics.isEmpty ? [device.topic] : device.fieldTopics }
            if let availability = device.availability { topics.append(availability.topic) }
        }
        for topic in topics { context.publish(OutboundMessage(topic: topic, retain: true, what: name), payload: []) }
    }
}
