/// `commands: { topic: "devices/{id}/set" }` of a device group: each device subscribes to its
/// topic, after every CONNACK, and what arrives sets its fields (those with a `command:`).
/// `{field}` as a level of the topic takes one field's bare value (`devices/{id}/set/{field}`,
/// as Home Assistant sends); `{requestId}` as a level names a request, answered on `response`
/// with the same id (ThingsBoard's `v1/devices/me/rpc/request/{requestId}`).
package struct Commands: Sendable, Equatable {
    package var topic: Template
    package var response: Template?

    package init(topic: Template, response: Template? = nil) {
        self.topic = topic
        self.response = response
    }

    /// The placeholders a command topic takes besides a device's.
    package static let placeholders = ["field", "requestId"]
}
