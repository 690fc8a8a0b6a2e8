import Scenario
import Testing

/// Issue 14, item 2: `discovery:` and the field hints, read with the reasons for what is refused.
@Suite struct DiscoveryLoadingTests {
    private func group(_ extra: String, style: String = "flat") -> String {
        """
        devices:
          - name: d
            topic: t
            publish: 1/s
        \(extra)
            payload:
              style: \(style)\(style == "template" ? "\n      template: \"{{v}}\"" : "")
              fields:
                v: { sine: {}, unit: W, deviceClass: power, stateClass: measurement }
        """
    }

    @Test func discoveryIsHomeAssistantsWithItsPrefixAndWords() throws {
        let short = try load(group("    discovery: homeassistant")).groups[0]
        #expect(short.discovery?.prefix == "homeassistant" && short.retain, "retained by default, for Home Assistant")
        let long = try load(group("    discovery: { type: homeassistant, prefix: ha, model: M, manufacturer: A }\n    retain: false"))
            .groups[0]
        #expect(long.discovery?.prefix == "ha" && long.discovery?.model == "M" && long.discovery?.manufacturer == "A")
        #expect(!long.retain, "a retain the group gives holds")
        let hints = long.payload.fields[0].entity
        #expect(hints.unit == "W" && hints.deviceClass == "power" && hints.stateClass == "measurement")
    }

    @Test func whatDiscoveryCannotDoIsRefusedWithItsPlace() {
        #expect(problems(group("    discovery: hass")) == ["test.yaml:5:16: expected homeassistant for 'discovery', found 'hass'"])
        #expect(problems(group("    discovery: { prefix: ha }")) == ["test.yaml:5:16: missing 'type' in 'discovery' (homeassistant)"])
        #expect(
            problems(group("    discovery: homeassistant", style: "template")) == [
                "test.yaml:5:16: device group 'd' has 'discovery' and a template payload: Home Assistant reads each value out of JSON, "
                    + "so discovery needs payload style milkcocoa or flat"
            ])
        let badClass = group("").replacingOccurrences(of: "stateClass: measurement", with: "stateClass: sum")
        #expect(problems(badClass).first?.contains("expected measurement, total or total_increasing for 'stateClass'") == true)
    }
}
