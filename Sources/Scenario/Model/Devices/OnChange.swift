/// `onChange: { fields: [door_open], heartbeat: 10m }` of a device group (or `publish: onChange`,
/// which looks once a second and watches every field that holds a state: a boolean, text, a
/// `dwell`): a tick is sent when a watched field's value differs from the last sent, or when the
/// heartbeat has passed since; otherwise it counts as `unchanged`.
package struct OnChange: Sendable, Equatable {
    /// The top-level fields watched.
    package var fields: [String]
    /// Seconds after which a tick is sent however unchanged.
    package var heartbeat: Double

    package init(fields: [String], heartbeat: Double = OnChange.defaultHeartbeat) {
        self.fields = fields
        self.heartbeat = heartbeat
    }

    package static let defaultHeartbeat = 300.0
}
