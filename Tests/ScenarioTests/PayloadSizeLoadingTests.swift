import Testing
@testable import Scenario
import Signals

/// Issue 29, item 2: `payload.size` and `style: raw` as they load, and what they refuse, each at
/// its file, line and column.
@Suite struct PayloadSizeLoadingTests {
    func group(_ payload: String, extra: String = "") -> String {
        "devices:\n  - name: d\n    topic: t\n    publish: 1/s\n" + extra + "    payload:\n" + payload
    }

    func load(_ text: String) throws(ScenarioError) -> Scenario {
        try ScenarioLoader.load(bytes: Array(text.utf8), file: "test.yaml", environment: [:], generators: .standard)
    }

    func problems(_ text: String) -> [String] {
        do {
            _ = try load(text)
            return ["loaded without errors"]
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    @Test func aSizeIsBytesWithAKilobyteOf1024() throws {
        let scenario = try load(group("      size: 1KB\n      fields:\n        seq: { counter: 0 }\n"))
        #expect(scenario.groups.first?.payload.size == 1024)
        let raw = try load(
            group("      style: raw\n      fields:\n        blob: { bytes: { size: 64KB, content: repeat, pattern: ab } }\n"))
        #expect(raw.groups.first?.payload.style == .raw)
        let recipe = try #require(raw.groups.first?.payload.fields.first?.generator as? BytesRecipe)
        #expect(recipe.size == 65_536 && recipe.content == .repeat && recipe.pattern == Array("ab".utf8))
    }

    @Test func aSizeBelowTheFieldsLongestIsRefused() {
        // 11 + "temp": 26.00 (7 + 5) + , + "seq": and a counter's 26 at most + }} = 58.
        #expect(
            problems(
                group(
                    "      size: 40\n      fields:\n        temp: { sine: { min: 18, max: 26, period: 1h }, decimals: 2 }\n"
                        + "        seq: { counter: 0 }\n")) == [
                    "test.yaml:6:13: 'size' is 40 bytes, but the fields can take up to 58 bytes in style milkcocoa: give a size of at least 58 "
                        + "(a number's longest form counts, unless its decimals and min and max bound it)"
                ])
        #expect(
            (try? load(
                group(
                    "      size: 58\n      fields:\n        temp: { sine: { min: 18, max: 26, period: 1h }, decimals: 2 }\n        seq: { counter: 0 }\n"
                ))) != nil)
        // Text from choices is known, whatever is drawn.
        #expect(
            problems(group("      style: flat\n      size: 20\n      fields:\n        s: { choice: { values: [on, \"a long state\"] } }\n"))
                == ["loaded without errors"])
        #expect(
            problems(group("      style: flat\n      size: 19\n      fields:\n        s: { choice: { values: [on, \"a long state\"] } }\n"))
                == [
                    "test.yaml:7:13: 'size' is 19 bytes, but the fields can take up to 20 bytes in style flat: give a size of at least 20 "
                        + "(a number's longest form counts, unless its decimals and min and max bound it)"
                ])
    }

    @Test func aSizeAboveMQTTsLimitOrInBadUnitsIsRefused() {
        #expect(
            problems(group("      size: 256MB\n      fields:\n        seq: { counter: 0 }\n")) == [
                "test.yaml:6:13: expected a size of at most 268435455 bytes (256MB less 1) for 'size', found '256MB': "
                    + "MQTT's Remaining Length holds a PUBLISH's topic and payload in 268,435,455 bytes"
            ])
        #expect(
            problems(group("      size: 268435455\n      fields:\n        seq: { counter: 0 }\n")) == [
                "test.yaml:6:13: device group 'd' sends payloads of 268435455 bytes, but a PUBLISH holds at most 268435451 with its "
                    + "topic and packet id (MQTT's Remaining Length, 268,435,455 bytes)"
            ])
        #expect(
            problems(group("      size: 1KX\n      fields:\n        seq: { counter: 0 }\n")) == [
                "test.yaml:6:13: expected a size such as 512KB, 64MB or 1GB for 'size', found '1KX'"
            ])
        #expect(
            problems(group("      size: 0\n      fields:\n        seq: { counter: 0 }\n")) == [
                "test.yaml:6:13: expected a size of at least 1 byte for 'size', found '0'"
            ])
        #expect(
            problems(group("      style: perField\n      size: 1KB\n      fields:\n        seq: { counter: 0 }\n")) == [
                "test.yaml:7:13: 'size' makes one payload that long; in the per-field style each field is a message of its own"
            ])
    }

    @Test func bytesAreForARawPayloadAloneAndWithOneSize() {
        #expect(
            problems(group("      fields:\n        blob: { bytes: 1KB }\n")) == [
                "test.yaml:7:9: field 'blob' is made by bytes, a binary value: only style: raw sends it (milkcocoa payloads carry text)"
            ])
        #expect(
            problems(group("      style: raw\n      fields:\n        blob: { bytes: 1KB }\n        n: { counter: 0 }\n")) == [
                "test.yaml:8:9: style: raw sends one bytes field as the whole payload; found 2 fields (blob, n)"
            ])
        #expect(
            problems(group("      style: raw\n      fields:\n        n: { counter: 0 }\n")) == [
                "test.yaml:8:9: field 'n' of a raw payload must be made by bytes (the binary payload itself), found 'counter'"
            ])
        #expect(
            problems(group("      style: raw\n      fields:\n        blob: { bytes: {} }\n")) == [
                "test.yaml:8:9: field 'blob' needs its size: bytes: 64KB, bytes: { size: 64KB }, or the payload's size"
            ])
        #expect(
            problems(group("      style: raw\n      size: 2KB\n      fields:\n        blob: { bytes: 1KB }\n")) == [
                "test.yaml:7:13: the payload's 'size' (2048 bytes) differs from its bytes field's (1024 bytes): give one of them"
            ])
        #expect(
            problems(group("      style: raw\n      fields:\n        blob: { bytes: { size: 1KB, content: rand } }\n")) == [
                "test.yaml:8:46: expected random or repeat for 'content', found 'rand'"
            ])
        #expect(
            problems(group("      style: raw\n      fields:\n        blob: { bytes: { size: 1KB, pattern: ab } }\n")) == [
                "test.yaml:8:46: 'pattern' is what content: repeat repeats; this field's content is random"
            ])
        #expect(
            problems(group("      style: raw\n      fields:\n        blob: { bytes: 1KB, faults: { dropout: { probability: 1 } } }\n")) == [
                "test.yaml:8:9: field 'blob' is made by bytes, which takes no modifiers (decimals, noise, min, max, faults, command)"
            ])
    }

    @Test func aRawPayloadRefusesWhatReadsJSON() {
        let raw = "      style: raw\n      fields:\n        blob: { bytes: 1KB }\n"
        #expect(
            problems(group(raw, extra: "    verify: { sequence: seq }\n")) == [
                "test.yaml:5:13: device group 'd' has 'verify' and a raw payload (style: raw): verify reads a sequence number and a send time out of JSON"
            ])
        #expect(
            problems(group(raw, extra: "    discovery: { type: homeassistant }\n")) == [
                "test.yaml:5:16: device group 'd' has 'discovery' and a raw payload (style: raw): Home Assistant reads each value out of JSON"
            ])
        #expect(
            problems(group(raw, extra: "    onChange: { fields: [blob] }\n")) == [
                "test.yaml:5:15: device group 'd' has 'onChange' and a raw payload (style: raw): onChange compares fields, and a raw payload is bytes"
            ])
        #expect(
            problems("broker: { protocol: mqtt5 }\n" + group(raw, extra: "    properties: { payloadFormatIndicator: utf8 }\n")) == [
                "test.yaml:6:17: device group 'd' says its payloads are UTF-8 text (payloadFormatIndicator: utf8), but a raw payload "
                    + "is binary bytes, which a broker may refuse as such: say bytes, or leave the indicator out"
            ])
    }
}
