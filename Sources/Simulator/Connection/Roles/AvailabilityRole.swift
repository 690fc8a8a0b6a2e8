import MQTT

/// Each device's availability (`online` or `offline`, retained, QoS 1), where its group has one:
/// `online` at every CONNACK, before any telemetry, and `offline` before a clean DISCONNECT, which
/// suppresses the will. Not ticks: counted nowhere, and their acknowledgements are not waited for.
final class AvailabilityRole: ConnectionRole {
    let name = "availability"
    private let announcements: [DevicePlan.Announcement]
    /// Home Assistant discovery clears the availability topics itself when the devices leave.
    private let clearedByDiscovery: Bool

    init?(devices: [DevicePlan]) {
        announcements = devices.compactMap(\.availability)
        guard !announcements.isEmpty else { return nil }
        clearedByDiscovery = devices.contains { $0.discovery != nil }
    }

    func connected(_ context: any RoleContext) { say(online: true, context) }

    func disconnecting(_ farewell: Farewell, _ context: any RoleContext) {
        if farewell != .leaving || !clearedByDiscovery { say(online: false, context) }
    }

    private func say(online: Bool, _ context: any RoleContext) {
        for announcement in announcements {
            context.publish(
                OutboundMessage(topic: announcement.topic, retain: true, what: name),
                payload: online ? announcement.online : announcement.offline)
        }
    }
}
