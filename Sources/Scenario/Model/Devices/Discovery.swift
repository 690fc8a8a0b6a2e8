/// `discovery: homeassistant` of a device group: each device announces its fields as Home
/// Assistant entities, retained, under `prefix`; see `HomeAssistantDiscovery` in Simulator.
package struct Discovery: Sendable, Equatable {
    package var prefix = Discovery.defaultPrefix
    /// The `device` block's words; by default devsim's name and the group's.
    package var manufacturer: String?
    package var model: String?

    package static let defaultPrefix = "homeassistant"
    package static let types = ["homeassistant"]
}
