/// A field's `unit`, `deviceClass` and `stateClass`: nothing in its payload, everything in the
/// dashboards that discover it (Home Assistant's `unit_of_measurement`, `device_class`,
/// `state_class`).
package struct EntityHints: Sendable, Equatable {
    package var unit: String?
    package var deviceClass: String?
    package var stateClass: String?

    package init(unit: String? = nil, deviceClass: String? = nil, stateClass: String? = nil) {
        self.unit = unit
        self.deviceClass = deviceClass
        self.stateClass = stateClass
    }

    /// Home Assistant's state classes.
    package static let stateClasses = ["measurement", "total", "total_increasing"]
}
