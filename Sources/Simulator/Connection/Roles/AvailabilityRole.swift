import MQTT

/// Each device's availability (`online` or `offline`, retained, QoS 1), where its group has one:
/// `online` at every CONNACK, before any telemetry, and `offline` before a clean DISCONNECT, which
/// suppresses the will. Not ticks: counted nowhere, and their acknowledgements are not waited for.
final class AvailabilityRole: ConnectionRole {
    private let announcements: [DevicePlan.Announcement]
    /// Home Assistant discovery clears the availability topics itself when the devices leave.
    private let clearedByDiscovery: Bool

    init?(devices: [DevicePlan]) {
        announcements = devices.compactMap(\.availability)
        guard !announcements.isEmpty else { return nil }
        clearedByDiscovery = devices.contains { $0.discovery != nil }
    }

    func connected(now: UInt64) -> [RoleAction] { say(online: true) }

    func disconnecting(_ farewell: Farewell) -> [RoleAction] {
        farewell == .leaving && clearedByDiscovery ? [] : say(online: false)
    }

    private func say(online: Bool) -> [RoleAction] {
        announcements.map {
            .publish(AsideMessage(topic: $0.topic, payload: online ? $0.online : $0.offline, retain: true, what: "availability"))
        }
    }
}
