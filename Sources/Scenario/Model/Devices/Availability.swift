/// `availability:` of a device group, as dashboards watch devices: `online`, retained at QoS 1,
/// after every CONNACK and before any telemetry; `offline` as the will, and published before a
/// clean DISCONNECT (the end of a run, a pause), which suppresses the will.
package struct Availability: Sendable, Equatable {
    /// Filled per device: `devices/{id}/status`.
    package var topic: Template
    package var online: String
    package var offline: String

    package static let defaultOnline = "online"
    package static let defaultOffline = "offline"
}
