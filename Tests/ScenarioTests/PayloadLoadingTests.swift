import Testing
@testable import Scenario
import Signals

@Suite struct PayloadLoadingTests {
    func device(fields: String, payload: String = "") -> String {
        "devices:\n  - name: d\n    topic: t\n    publish: 1/s\n    payload:\n" + payload + "      fields:\n" + fields
    }

    func payload(_ text: String) throws -> PayloadSpec {
        try #require(try load(text).groups.first?.payload)
    }

    // MARK: - Faults

    @Test func loadsEveryFault() throws {
        let spec = try payload(
            device(
                fields: """
                            T:
                              sine: { min: 18, max: 26 }
                              decimals: 1
                              faults:
                                spike: { probability: 0.01, magnitude: 10 }
                                stuck: { probability: 0.001, duration: 5m }
                                dropout: { probability: 0.02, mode: null }
                                drift: { perHour: -0.5 }
                            U: { uuid: {}, faults: { dropout: { probability: 1 } } }
                    """))
        #expect(
            spec.fields[0].faults
                == FieldFaults(
                    spike: .init(probability: 0.01, magnitude: 10),
                    stuck: .init(probability: 0.001, duration: 300),
                    dropout: .init(probability: 0.02, mode: .null),
                    drift: .init(perHour: -0.5)))
        #expect(spec.fields[0].decimals == 1)
        #expect(spec.fields[1].faults == FieldFaults(dropout: .init(probability: 1, mode: .omit)))
        #expect(spec.fields[1].faults.dropout?.mode == .omit)
    }

    @Test func faultErrorsPointAtTheirPlace() {
        #expect(
            problems(device(fields: "        T: { sine: {}, faults: { spkie: { probability: 0.1 } } }")) == [
                "test.yaml:7:34: unknown fault 'spkie' in field 'T'; did you mean 'spike'?"
            ])
        #expect(
            problems(device(fields: "        T: { sine: {}, faults: { glitch: {} } }")) == [
                "test.yaml:7:34: unknown fault 'glitch' in field 'T'; expected one of: spike, stuck, dropout, drift"
            ])
        #expect(
            problems(device(fields: "        T: { sine: {}, faults: { spike: { probability: 1.5, magnitude: 2 } } }")) == [
                "test.yaml:7:56: expected a probability from 0 to 1 for 'probability', found '1.5'"
            ])
        #expect(
            problems(device(fields: "        T: { sine: {}, faults: { dropout: { probability: -0.1 } } }")) == [
                "test.yaml:7:58: expected a probability from 0 to 1 for 'probability', found '-0.1'"
            ])
        #expect(
            problems(device(fields: "        T: { sine: {}, faults: { spike: { magnitude: 2 } } }")) == [
                "test.yaml:7:41: missing 'probability' in fault 'spike' of field 'T' (the chance per publish, from 0 to 1)"
            ])
        #expect(
            problems(device(fields: "        T: { sine: {}, faults: { spike: { probability: 0.1, magnitude: 0 } } }")) == [
                "test.yaml:7:72: expected a number above 0 for 'magnitude', found '0'"
            ])
        #expect(
            problems(device(fields: "        T: { sine: {}, faults: { stuck: { probability: 0.1, duration: 0s } } }")) == [
                "test.yaml:7:71: expected a duration such as 250ms, 30s, 5m, 1.5h or 2d above zero for 'duration', found '0s'"
            ])
        #expect(
            problems(device(fields: "        T: { sine: {}, faults: { dropout: { probability: 0.1, mode: skip } } }")) == [
                "test.yaml:7:69: expected omit or null for 'mode', found 'skip'"
            ])
        #expect(
            problems(device(fields: "        T: { sine: {}, faults: { drift: { perhour: 1 } } }")) == [
                "test.yaml:7:41: missing 'perHour' in fault 'drift' of field 'T' (units added per hour)",
                "test.yaml:7:43: unknown key 'perhour' in fault 'drift' of field 'T'; did you mean 'perHour'?",
            ])
        #expect(
            problems(device(fields: "        T: { sine: {}, faults: [spike] }")) == [
                "test.yaml:7:32: expected a mapping for 'faults' of field 'T', found a list"
            ])
        #expect(
            problems(device(fields: "        T: { sine: {}, fualts: {} }")) == [
                "test.yaml:7:24: unknown modifier 'fualts' in field 'T'; did you mean 'faults'?"
            ])
    }

    @Test func everyFaultProblemIsReported() {
        #expect(
            problems(
                device(
                    fields: """
                                T:
                                  sine: {}
                                  faults:
                                    spike: { probability: 2, magnitude: -1 }
                                    stuck: { probability: 0.5 }
                        """)
            ).count == 3)
    }

    // MARK: - Groups

    @Test func loadsNestedGroupsInOrder() throws {
        let spec = try payload(
            device(
                fields: """
                            id: { uuid: {} }
                            location:
                              fields:
                                lat: { sine: { min: -90, max: 90 }, decimals: 5 }
                                lon: { sine: { min: -180, max: 180 }, decimals: 5 }
                                fix: { fields: { sats: { uuid: {} } } }
                            T: { sine: {} }
                    """))
        #expect(spec.fields.map(\.name) == ["id", "location", "T"])
        let location = try #require(spec.fields[1].fields)
        #expect(location.map(\.name) == ["lat", "lon", "fix"])
        #expect(location[0].decimals == 5)
        #expect(location[2].fields?.map(\.name) == ["sats"])
        #expect(spec.fields[1].generator == nil)
    }

    @Test func groupErrors() {
        #expect(
            problems(device(fields: "        g: { fields: { a: { sine: {} } }, decimals: 2 }")) == [
                "test.yaml:7:43: unexpected 'decimals' in group 'g': a field with 'fields' is a group of fields and takes nothing else; give generators and modifiers to its members"
            ])
        #expect(
            problems(device(fields: "        g: { fields: {} }")) == [
                "test.yaml:7:22: expected at least one field in 'fields' of group 'g', found a mapping"
            ])
        #expect(
            problems(device(fields: "        g: { fields: { a: { fields: { b: { sinus: {} } } } } }")) == [
                "test.yaml:7:44: unknown generator 'sinus'; did you mean 'sine'? (generators: " + generatorList
            ])
        #expect(
            problems(device(fields: "        g: { fields: { a: { decimals: 1 } } }")) == [
                "test.yaml:7:27: field 'g.a' needs a generator: one of sine, accelerometer, uuid"
            ])
    }

    // MARK: - Templates

    @Test func loadsATemplate() throws {
        let spec = try payload(
            device(
                fields: "        T: { sine: {} }\n        H: { sine: {} }\n",
                payload: "      style: template\n      template: \"{{id}},{{T}} {{ H }}\"\n"))
        #expect(spec.style == .template)
        #expect(spec.template?.segments == [.placeholder("id"), .text(","), .placeholder("T"), .text(" "), .placeholder("H")])
    }

    @Test func templateErrors() {
        let fields = "        temperature: { sine: {} }\n        humidity: { sine: {} }\n"
        #expect(
            problems(device(fields: fields, payload: "      style: template\n      template: \"{{temprature}} {{x}} {{x}}\"\n")) == [
                "test.yaml:7:17: unknown placeholder '{{temprature}}' in 'template'; did you mean '{{temperature}}'?",
                "test.yaml:7:17: unknown placeholder '{{x}}' in 'template'; expected a field of the payload (temperature, humidity) or {{id}}, {{index}}",
            ])
        #expect(
            problems(device(fields: fields, payload: "      style: template\n      template: \"a {{temperature\"\n")) == [
                "test.yaml:7:17: '{{' is not closed by '}}' in 'template', at character 3"
            ])
        #expect(
            problems(device(fields: fields, payload: "      style: template\n")) == [
                "test.yaml:6:7: missing 'template' in 'payload' with style template (a text with {{field}} placeholders)"
            ])
        #expect(
            problems(device(fields: fields, payload: "      style: flat\n      template: \"{{humidity}}\"\n")) == [
                "test.yaml:7:17: 'template' is used only with 'style: template'; this payload's style is flat"
            ])
        #expect(
            problems(device(fields: fields, payload: "      template: \"{{humidity}}\"\n")) == [
                "test.yaml:6:17: 'template' is used only with 'style: template'"
            ])
        #expect(
            problems(device(fields: fields, payload: "      style: templat\n")) == [
                "test.yaml:6:14: expected milkcocoa, flat, template, perField or raw for 'style', found 'templat'; did you mean 'template'?"
            ])
    }
}
