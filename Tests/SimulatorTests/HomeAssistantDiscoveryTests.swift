import Foundation
import Scenario
import Testing

@testable import Report
@testable import Simulator

/// Issue 14, item 2: what the configs say, against what Home Assistant's schemas accept.
@Suite struct HomeAssistantDiscoveryTests {
    private func configs(_ yaml: String) throws -> [String: [String: Any]] {
        let plan = try plan(yaml: yaml, file: "t.yaml")
        let discovery = try #require(plan.connections.first?.devices.first?.discovery)
        var byTopic: [String: [String: Any]] = [:]
        for config in discovery.configs {
            byTopic[config.topic] = try JSONSerialization.jsonObject(with: Data(config.payload)) as? [String: Any]
        }
        return byTopic
    }

    @Test func controlsKeepToWhatHomeAssistantTakes() throws {
        let configs = try configs(
            """
            devices:
              - name: lamp
                topic: "l/{id}"
                publish: 1/s
                discovery: homeassistant
                commands: { topic: "l/{id}/set" }
                payload:
                  style: flat
                  fields:
                    light: { bool: 0, command: set, deviceClass: light }
                    level: { uniform: { min: 0, max: 1 }, decimals: 4, min: 0, max: 1, command: set }
                    mode: { choice: { values: [1, eco] }, command: set }
                    t: { randomWalk: { mean: 21, step: 0.1, min: 15, max: 28 }, command: { setpoint: 1/min } }
            """)
        let light = try #require(configs["homeassistant/switch/lamp-1/light/config"])
        #expect(light["device_class"] == nil, "a switch takes only outlet or switch")
        #expect(light["command_template"] as? String == #"{"light": "{{ value }}"}"#)
        let level = try #require(configs["homeassistant/number/lamp-1/level/config"])
        #expect(level["step"] as? Double == 0.001, "Home Assistant refuses a step below 0.001")
        let t = try #require(configs["homeassistant/number/lamp-1/t/config"])
        #expect(t["min"] as? Double == 15 && t["max"] as? Double == 28, "the bounds a setpoint keeps to")
        let mode = try #require(configs["homeassistant/select/lamp-1/mode/config"])
        #expect(mode["options"] as? [String] == ["1", "eco"])
    }
}

extension HomeAssistantDiscoveryTests {
    @Test func perFieldEntitiesReadTheirOwnTopics() throws {
        let plan = try plan(
            yaml: """
                devices:
                  - name: room
                    topic: "r/{id}"
                    publish: 1/s
                    discovery: homeassistant
                    payload:
                      style: perField
                      fields:
                        temperature: { sine: { min: 18, max: 24, period: 1h }, decimals: 1 }
                        open: { bool: 0.5 }
                        position:
                          fields:
                            lat: { location: { coordinate: latitude } }
                            lon: { location: { coordinate: longitude } }
                """, file: "t.yaml")
        let discovery = try #require(plan.connections.first?.devices.first?.discovery)
        var configs: [String: [String: Any]] = [:]
        for config in discovery.configs {
            configs[config.topic] = try JSONSerialization.jsonObject(with: Data(config.payload)) as? [String: Any]
        }
        let temperature = try #require(configs["homeassistant/sensor/room-1/temperature/config"])
        #expect(
            temperature["state_topic"] as? String == "r/room-1/temperature" && temperature["value_template"] as? String == "{{ value }}")
        let open = try #require(configs["homeassistant/binary_sensor/room-1/open/config"])
        #expect(
            open["state_topic"] as? String == "r/room-1/open"
                && open["value_template"] as? String == "{{ 'ON' if value == 'true' else 'OFF' }}")
        let tracker = try #require(configs["homeassistant/device_tracker/room-1/location/config"])
        #expect(tracker["json_attributes_topic"] as? String == "r/room-1/position" && tracker["state_topic"] == nil)
    }
}
