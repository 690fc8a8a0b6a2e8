import MQTT

/// The devices' commands (`commands:`): their topics subscribed to after every CONNACK, and each
/// command that arrives handed to its device's connection to be carried out; a retained one
/// ignored, as it would be carried out again at every connection, undoing what came after it.
final class CommandRole: ConnectionRole {
    private let devices: [DevicePlan]
    private let filters: [String]
    /// When the SUBSCRIBEs went out (at the CONNACK), until their last SUBACK.
    private var subscribedAt: UInt64?

    init?(devices: [DevicePlan]) {
        filters = devices.flatMap { $0.commands?.filters ?? [] }
        guard !filters.isEmpty else { return nil }
        self.devices = devices
    }

    func connected(now: UInt64) -> [RoleAction] {
        subscribedAt = now
        return [.subscribe(filters, .atLeastOnce)]
    }

    func subscribed(_ suback: Subscriptions.Suback, now: UInt64) -> [RoleAction] {
        var actions: [RoleAction] = suback.refusal.map { [.warnOnce("commands: \($0): no command reaches the devices")] } ?? []
        if suback.isLast, let subscribedAt {
            actions.append(.subscribeLatency(now &- subscribedAt))
            self.subscribedAt = nil
        }
        return actions
    }

    func received(_ message: ReceivedMessage, connected: Bool, now: UInt64) -> [RoleAction]? {
        let topic = message.topic
        guard let device = devices.firstIndex(where: { $0.commands?.route(for: topic) != nil }) else { return nil }
        guard !message.retain else {
            return [
                .warnOnce("commands: a retained message on '\(topic)' ignored: send commands without retain", key: "commands: retained")
            ]
        }
        return [
            .carryOut(
                RoleAction.Command(
                    device: device, topic: topic, payload: Array(message.payload), arrivedAt: now,
                    replyTo: message.responseTopic.map { ($0, message.correlationData) }))
        ]
    }
}
