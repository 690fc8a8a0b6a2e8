import MQTT
import Scenario

/// `broker.properties` (MQTT 5 CONNECT properties) against the protocol the connections speak,
/// which the command line may choose (`--protocol`): checked here, where both are known, and
/// reported where the properties are written.
extension FleetPlan {
    /// A message when the run's connections cannot carry `broker.properties`: MQTT 3.1.1 or
    /// 3.1, or Azure IoT Hub, which takes MQTT 3.1.1 only.
    static func connectPropertyConflict(of scenario: Scenario, settings: RunSettings) -> Diagnostic? {
        guard let properties = scenario.broker.properties else { return nil }
        let version = settings.mqttProtocol ?? scenario.broker.protocol ?? Defaults.mqttProtocol
        let place = properties.location ?? SourceLocation(file: scenario.file, line: 1, column: 1)
        let problem: String
        if scenario.broker.azureIoTHub != nil {
            problem = "Azure IoT Hub takes MQTT 3.1.1 only, which has no properties: remove 'broker.properties'"
        } else if version != .v5 {
            let spoken = "MQTT \(version == .v31 ? "3.1" : "3.1.1")"
            problem =
                settings.mqttProtocol != nil
                ? "'broker.properties' are MQTT 5's, and --protocol \(version.name) makes this run \(spoken): use --protocol mqtt5"
                : "'broker.properties' are MQTT 5's, and this run speaks \(spoken)"
                    + (scenario.broker.protocol == nil ? " (the default)" : "") + ": set 'broker.protocol: mqtt5'"
        } else {
            return nil
        }
        return Diagnostic(file: place.file, line: place.line, column: place.column, message: problem)
    }

    /// Connection `index`, `id` of group `name`'s CONNECT properties into `options`: Receive
    /// Maximum by libmosquitto's own option (`MOSQ_OPT_RECEIVE_MAXIMUM`, sent by every
    /// connect), the others, if any, by the bridge.
    static func connectProperties(
        _ properties: BrokerConnectProperties, into options: inout ClientOptions, group: String, index: Int, id: String
    ) {
        if let receiveMaximum = properties.receiveMaximum { options.receiveMaximum = Int32(receiveMaximum) }
        let rendered = properties.render(name: group, index: index, id: id)
        if !rendered.isEmpty { options.connectProperties = rendered }
    }
}
