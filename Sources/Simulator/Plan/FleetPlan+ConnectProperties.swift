import MQTT
import Scenario

/// `broker.properties` (MQTT 5 CONNECT properties) against the protocol the connections speak,
/// which the command line may choose (`--protocol`): checked here, where both are known, and
/// reported where the properties are written.
extension FleetPlan {
    /// A message when the run's connections cannot carry `broker.properties`: MQTT 3.1.1 or
    /// 3.1, or Azure IoT Hub, which takes MQTT 3.1.1 only.
    static func connectPropertyConflict(of scenario: Scenario, settings: RunSettings) -> Diagnostic? {
        guard let properties = scenario.broker.properties,
            let problem = mqtt5Problem(with: "broker.properties", of: scenario, settings: settings)
        else { return nil }
        let place = properties.location ?? SourceLocation(file: scenario.file, line: 1, column: 1)
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
