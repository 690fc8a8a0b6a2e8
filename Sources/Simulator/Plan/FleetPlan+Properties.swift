import MQTT
import Scenario

/// MQTT 5 properties (a group's `properties:`) against the protocol the connections speak,
/// which the command line may choose (`--protocol`): checked here, where both are known, and
/// reported where the properties are written.
extension FleetPlan {
    /// One message for each device group of `scenario` that has properties its connections
    /// cannot carry: MQTT 3.1.1 or 3.1, or Azure IoT Hub, which takes MQTT 3.1.1 only.
    static func propertyConflicts(of scenario: Scenario, settings: RunSettings) -> [Diagnostic] {
        scenario.groups.compactMap { group in
            guard let properties = group.properties,
                let problem = mqtt5Problem(with: "properties", of: scenario, settings: settings)
            else { return nil }
            let place = properties.location ?? group.location ?? SourceLocation(file: scenario.file, line: 1, column: 1)
            return Diagnostic(
                file: place.file, line: place.line, column: place.column, message: "device group '\(group.name)': \(problem)")
        }
    }

    /// Why the run's connections cannot carry `key`, MQTT 5 properties, with the way out: they
    /// speak MQTT 3.1.1 or 3.1 (the file's, the default, or `--protocol`), or go to Azure IoT
    /// Hub, which takes MQTT 3.1.1 only; `nil` when they can.
    static func mqtt5Problem(with key: String, of scenario: Scenario, settings: RunSettings) -> String? {
        let version = protocolVersion(of: scenario, settings: settings)
        if scenario.broker.azureIoTHub != nil {
            return "Azure IoT Hub takes MQTT 3.1.1 only, which has no properties: remove '\(key)'"
        }
        guard version != .v5 else { return nil }
        let spoken = "MQTT \(version == .v31 ? "3.1" : "3.1.1")"
        if settings.mqttProtocol != nil {
            return "'\(key)' are MQTT 5's, and --protocol \(version.name) makes this run \(spoken): use --protocol mqtt5"
        }
        return "'\(key)' are MQTT 5's, and this run speaks \(spoken)"
            + (scenario.broker.protocol == nil ? " (the default)" : "") + ": set 'broker.protocol: mqtt5'"
    }
}
