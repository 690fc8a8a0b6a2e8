import Foundation
import Scenario
import Signals
import Testing

@testable import Report
@testable import Simulator

/// Issue 25, item 6: a thermostat is Home Assistant's `climate`, whose target is what the device
/// was told, checked against Home Assistant's MQTT climate documentation (its keys, and topics the
/// device publishes on and listens on), and its temperature stays a sensor with a state class.
@Suite struct ClimateDiscoveryTests {
    /// Every key Home Assistant's MQTT climate takes (home-assistant.io, "MQTT HVAC"), of those a
    /// discovered thermostat may use.
    static let climateKeys: Set<String> = [
        "action_template", "action_topic", "availability", "availability_mode", "availability_template", "availability_topic",
        "current_humidity_template", "current_humidity_topic", "current_temperature_template", "current_temperature_topic",
        "device", "enabled_by_default", "encoding", "entity_category", "icon", "json_attributes_template", "json_attributes_topic",
        "max_temp", "min_temp", "mode_command_template", "mode_command_topic", "mode_state_template", "mode_state_topic", "modes",
        "name", "object_id", "optimistic", "payload_available", "payload_not_available", "precision", "qos", "retain",
        "temperature_command_template", "temperature_command_topic", "temperature_state_template", "temperature_state_topic",
        "temperature_unit", "temp_step", "unique_id", "value_template",
    ]
    static let hvacModes: Set<String> = ["auto", "off", "cool", "heat", "dry", "fan_only"]

    static let thermostat = """
        devices:
          - name: thermostat
            topic: "home/{id}/state"
            publish: 1/30s
            availability: { topic: "home/{id}/status" }
            discovery: homeassistant
            commands: { topic: "home/{id}/set/{field}" }
            payload:
              style: flat
              fields:
                temperature: { randomWalk: { mean: 21, step: 0.05, min: 15, max: 28 }, decimals: 1, unit: "°C", deviceClass: temperature, command: { setpoint: 0.5/min } }
                target: { setpoint: { of: temperature }, decimals: 1 }
                mode: { constant: heat, command: set }
                humidity: { uniform: { min: 40, max: 50 }, unit: "%", deviceClass: humidity }
        """

    private func device(_ yaml: String) throws -> DevicePlan {
        let plan = try plan(yaml: yaml, file: "t.yaml")
        return try #require(plan.connections.first?.devices.first)
    }

    private func configs(_ device: DevicePlan) throws -> [String: [String: Any]] {
        var byTopic: [String: [String: Any]] = [:]
        for config in try #require(device.discovery).configs {
            byTopic[config.topic] = try JSONSerialization.jsonObject(with: Data(config.payload)) as? [String: Any]
        }
        return byTopic
    }

    @Test func aThermostatIsAClimateWhoseTargetIsWhatItWasTold() throws {
        let device = try device(Self.thermostat)
        let configs = try configs(device)
        let climate = try #require(configs["homeassistant/climate/thermostat-1/temperature_thermostat/config"])
        #expect(Set(climate.keys).isSubset(of: Self.climateKeys), "\(Set(climate.keys).subtracting(Self.climateKeys))")
        #expect(climate["state_topic"] == nil, "a climate has no state_topic of its own")
        #expect(climate["unique_id"] as? String == "devsim_thermostat-1_temperature_thermostat")
        #expect((climate["device"] as? [String: Any])?["identifiers"] as? [String] == ["devsim_thermostat-1"])
        // Read from the topic the device publishes on, sent to the topics it listens on.
        let commands = try #require(device.commands)
        #expect(climate["current_temperature_topic"] as? String == device.topic)
        #expect(climate["current_temperature_template"] as? String == "{{ value_json.temperature }}")
        #expect(climate["temperature_state_topic"] as? String == device.topic)
        #expect(climate["temperature_state_template"] as? String == "{{ value_json.target }}")
        let setTemperature = try #require(climate["temperature_command_topic"] as? String)
        #expect(setTemperature == "home/thermostat-1/set/temperature" && commands.matches(setTemperature))
        #expect(climate["mode_state_template"] as? String == "{{ value_json.mode }}")
        let setMode = try #require(climate["mode_command_topic"] as? String)
        #expect(setMode == "home/thermostat-1/set/mode" && commands.matches(setMode))
        let modes = try #require(climate["modes"] as? [String])
        #expect(modes == ["heat", "off"] && Set(modes).isSubset(of: Self.hvacModes))
        #expect(climate["min_temp"] as? Double == 15 && climate["max_temp"] as? Double == 28)
        #expect(climate["temperature_unit"] as? String == "C" && climate["precision"] as? Double == 0.1)
        #expect(climate["availability_topic"] as? String == "home/thermostat-1/status")
        // The temperature a sensor with statistics; the target and mode the climate's alone.
        let sensor = try #require(configs["homeassistant/sensor/thermostat-1/temperature/config"])
        #expect(sensor["state_class"] as? String == "measurement" && sensor["device_class"] as? String == "temperature")
        #expect(
            Set(configs.keys) == [
                "homeassistant/climate/thermostat-1/temperature_thermostat/config", "homeassistant/sensor/thermostat-1/temperature/config",
                "homeassistant/sensor/thermostat-1/humidity/config",
            ])
    }

    /// Without `{field}` in the commands topic each value goes to the device's topic as JSON; with
    /// no target reported Home Assistant keeps what it set, and with no mode the thermostat heats.
    @Test func aThermostatWithJSONCommandsAndNothingElseToSay() throws {
        let yaml = Self.thermostat.replacingOccurrences(of: "set/{field}", with: "set")
            .replacingOccurrences(of: "        target: { setpoint: { of: temperature }, decimals: 1 }\n", with: "")
            .replacingOccurrences(of: "        mode: { constant: heat, command: set }\n", with: "")
        let climate = try #require(try configs(try device(yaml))["homeassistant/climate/thermostat-1/temperature_thermostat/config"])
        #expect(Set(climate.keys).isSubset(of: Self.climateKeys))
        #expect(climate["temperature_command_topic"] as? String == "home/thermostat-1/set")
        #expect(climate["temperature_command_template"] as? String == #"{"temperature": {{ value }}}"#)
        #expect(climate["temperature_state_topic"] == nil, "no target reported: Home Assistant keeps what it set")
        #expect(climate["modes"] as? [String] == ["heat"] && climate["mode_state_template"] as? String == "heat")
        #expect(climate["mode_command_topic"] == nil)
    }

    /// The target a command gave the setpoint, and its centre before any.
    @Test func theTargetFieldReportsTheSetpoint() throws {
        let scenario = try scenario(yaml: Self.thermostat, file: "t.yaml")
        let signals = DeviceSignals(payload: scenario.groups[0].payload, deviceID: "t-1", index: 1, seed: 1, sampleInterval: nil)
        func target(at elapsed: Double) throws -> Double? {
            var buffer = PayloadBuffer()
            signals.encode(elapsed: elapsed, wallClock: 1_800_000_000 + elapsed, into: &buffer)
            return try #require(try JSONSerialization.jsonObject(with: Data(buffer.text.utf8)) as? [String: Any])["target"] as? Double
        }
        #expect(try target(at: 0) == 21, "the walk's mean, before any command")
        try signals.take([("temperature", .number(25))])
        #expect(try target(at: 30) == 25 && target(at: 60) == 25, "what it was told, at once, while the room drifts")
        // Issue 38, item 4: written itself (a SCADA host's setpoint tag, a thermostat's
        // target), it is the temperature's setpoint, checked against its bounds, named as written.
        try signals.take([("target", .number(19))])
        #expect(try target(at: 90) == 19)
        #expect(throws: CommandRejection("field 'target' is at most 28")) { try signals.take([("target", .number(40))]) }
    }

    @Test func aSetpointFieldNamesASetpoint() {
        for (fields, message) in [
            (
                "t: { uniform: { min: 0, max: 1 } }\n        s: { setpoint: { of: t } }",
                "which has none: give that field command: { setpoint: 0.5/min }"
            ),
            ("s: { setpoint: { of: nowhere } }", "'of: nowhere', which is no field of the payload"),
            ("s: { setpoint: t }", "setpoint takes a map with of"),
            // Issue 38, item 4: `set` would make the target a value of its own.
            (
                "t: { randomWalk: { mean: 1, step: 0.1 }, command: { setpoint: 1/min } }\n        s: { setpoint: { of: t }, command: set }",
                "field 's' reports the setpoint of 't' and takes a command as that setpoint already: remove its 'command'"
            ),
        ] {
            let yaml = "devices:\n  - name: d\n    topic: t\n    publish: 1/s\n    payload:\n      fields:\n        \(fields)\n"
            do {
                _ = try scenario(yaml: yaml, file: "t.yaml")
                Issue.record("loaded \(fields)")
            } catch {
                #expect("\(error)".contains(message), "\(error)")
                #expect("\(error)".contains("t.yaml:"), "names the file, line and column: \(error)")
            }
        }
    }
}
