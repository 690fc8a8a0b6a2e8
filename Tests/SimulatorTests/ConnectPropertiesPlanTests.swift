import MQTT
import Scenario
import Simulator
import Testing
import TestSupport

@testable import Simulator

/// Issue 29, item 1: `broker.properties` against the protocol the run speaks, which the file or
/// `--protocol` chooses; refused where `properties` is written. Receive Maximum alone takes
/// libmosquitto's own option; the others go through the bridge.
@Suite struct ConnectPropertiesPlanTests {
    static func scenario(broker: String, properties: String = "userProperties: { rack: \"{id}\" }") throws -> Scenario {
        let text = ScenarioText(
            broker: [broker, "properties: { \(properties) }"], group: "meter", topic: "plant/{id}", publish: "1/s",
            fields: "power: { constant: 5 }")
        return try SimulatorTests.scenario(yaml: text.text, file: "t.yaml")
    }

    private func conflicts(_ broker: String, settings: RunSettings = RunSettings()) throws -> [String] {
        FleetPlan(scenarios: [try Self.scenario(broker: broker)], settings: settings).conflicts.map(\.description)
    }

    @Test func mqtt5CarriesThemPerConnection() throws {
        #expect(try conflicts("protocol: mqtt5") == [])
        let plan = FleetPlan(scenarios: [try Self.scenario(broker: "protocol: mqtt5")], settings: RunSettings())
        let options = try #require(plan.connections.first?.options)
        #expect(options.connectProperties == ConnectProperties(userProperties: [UserProperty(name: "rack", value: "meter-1")]))
        #expect(options.usesBridge)
    }

    @Test func receiveMaximumAloneNeedsNoBridge() throws {
        let plan = FleetPlan(
            scenarios: [try Self.scenario(broker: "protocol: mqtt5", properties: "receiveMaximum: 7")], settings: RunSettings())
        let options = try #require(plan.connections.first?.options)
        #expect(options.receiveMaximum == 7)
        #expect(options.connectProperties == nil)
        #expect(!options.usesBridge)
    }

    @Test func mqtt3IsRefusedWhereThePropertiesAre() throws {
        #expect(
            try conflicts("protocol: mqtt311") == [
                "t.yaml:3:15: 'broker.properties' are MQTT 5's, and this run speaks MQTT 3.1.1: set 'broker.protocol: mqtt5'"
            ])
        #expect(try conflicts("port: 1883").first?.contains("MQTT 3.1.1 (the default): set 'broker.protocol: mqtt5'") == true)
        var settings = RunSettings()
        settings.mqttProtocol = .v311
        #expect(
            try conflicts("protocol: mqtt5", settings: settings) == [
                "t.yaml:3:15: 'broker.properties' are MQTT 5's, and --protocol mqtt311 makes this run MQTT 3.1.1: use --protocol mqtt5"
            ])
        settings.mqttProtocol = .v5
        #expect(try conflicts("port: 1883", settings: settings) == [])
    }

    @Test func azureIoTHubTakesNone() throws {
        let found = try conflicts("azureIoTHub: { hub: h.azure-devices.net, deviceKey: \"AAAA\" }")
        #expect(found.contains { $0.contains("Azure IoT Hub takes MQTT 3.1.1 only, which has no properties") }, "\(found)")
    }
}
