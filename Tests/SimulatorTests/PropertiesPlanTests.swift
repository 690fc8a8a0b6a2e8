import MQTT
import Scenario
import Simulator
import Testing

@testable import Simulator

/// Issue 29, item 1: a group's MQTT 5 properties against the protocol the run speaks, which the
/// file or `--protocol` chooses; refused where `properties` is written.
@Suite struct PropertiesPlanTests {
    static func scenario(broker: String) throws -> Scenario {
        try SimulatorTests.scenario(
            yaml: """
                broker: { \(broker) }
                devices:
                  - name: meter
                    topic: "plant/{id}"
                    publish: 1/s
                    payload: { fields: { power: { constant: 5 } } }
                    properties: { userProperties: { device: "{id}" } }
                """, file: "t.yaml")
    }

    private func conflicts(_ broker: String, settings: RunSettings = RunSettings()) throws -> [String] {
        FleetPlan(scenarios: [try Self.scenario(broker: broker)], settings: settings).conflicts.map(\.description)
    }

    @Test func mqtt5CarriesThemPerDevice() throws {
        #expect(try conflicts("protocol: mqtt5") == [])
        let plan = FleetPlan(scenarios: [try Self.scenario(broker: "protocol: mqtt5")], settings: RunSettings())
        #expect(plan.connections.first?.devices.first?.properties?.userProperties == [UserProperty(name: "device", value: "meter-1")])
    }

    @Test func mqtt3IsRefusedWhereThePropertiesAre() throws {
        #expect(
            try conflicts("") == [
                "t.yaml:7:17: device group 'meter': 'properties' are MQTT 5's, and this run speaks MQTT 3.1.1 (the default): "
                    + "set 'broker.protocol: mqtt5'"
            ])
        #expect(try conflicts("protocol: mqtt31").first?.contains("this run speaks MQTT 3.1: set 'broker.protocol: mqtt5'") == true)
        var settings = RunSettings()
        settings.mqttProtocol = .v311
        #expect(
            try conflicts("protocol: mqtt5", settings: settings) == [
                "t.yaml:7:17: device group 'meter': 'properties' are MQTT 5's, and --protocol mqtt311 makes this run MQTT 3.1.1: "
                    + "use --protocol mqtt5"
            ])
        settings.mqttProtocol = .v5
        #expect(try conflicts("", settings: settings) == [])
    }

    @Test func azureIoTHubTakesNone() throws {
        let found = try conflicts("azureIoTHub: { hub: h.azure-devices.net, deviceKey: \"AAAA\" }")
        #expect(found.contains { $0.contains("Azure IoT Hub takes MQTT 3.1.1 only, which has no properties") }, "\(found)")
    }
}
