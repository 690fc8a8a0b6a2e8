import Signals
import Testing
@testable import Scenario

@Suite struct InterpolationLoadingTests {
    let text = """
        broker:
          host: ${HOST}
          port: ${PORT:-1883}
          password: "${SECRET:-}"
        \(minimalDevices)
        """

    @Test func setVariablesAreUsedAndKeepTheirType() throws {
        let scenario = try load(text, environment: ["HOST": "h", "PORT": "8883", "SECRET": "s"])
        #expect(scenario.broker.host == "h")
        #expect(scenario.broker.port == 8883)
        #expect(scenario.broker.password == "s")
    }

    @Test func defaultsApplyWhenUnset() throws {
        let scenario = try load(text, environment: ["HOST": "h"])
        #expect(scenario.broker.port == 1883)
        #expect(scenario.broker.password == "")
    }

    @Test func unsetWithoutDefaultIsAnErrorAtTheScalar() {
        #expect(
            problems(text, environment: [:]) == [
                "test.yaml:2:9: environment variable 'HOST' is not set; set it or write ${HOST:-default}"
            ])
    }

    /// Issue 38, item 8: a value of the environment is data: `PW='Tr0ub{id}'` was sent as
    /// `Tr0ubd-1`, and `PW='p{w}d'` refused as an unknown placeholder. Its braces stay as they
    /// are in every template (the password, the user name, a topic, a payload's template, a
    /// constant), while the file's own placeholders beside them are filled.
    @Test func valuesOfTheEnvironmentAreDataNotTemplates() throws {
        let yaml = """
            broker:
              username: "${USER_PREFIX}-{id}"
              password: ${PW}
            devices:
              - name: d
                topic: "${APP}/{id}/push"
                publish: 1/s
                payload:
                  style: template
                  template: "${BODY} {{v}} {{id}}"
                  fields: { v: { constant: "${LABEL}-{index}" } }
            """
        let environment = ["USER_PREFIX": "u{name}", "PW": "Tr0ub{id}", "APP": "a{index}", "BODY": "{{v}}", "LABEL": "l{id}{{x}"]
        func load(_ yaml: String, environment: [String: String]) throws -> Scenario {
            try ScenarioLoader.load(bytes: Array(yaml.utf8), file: "test.yaml", environment: environment, generators: .standard)
        }
        let scenario = try load(yaml, environment: environment)
        func render(_ text: String?) -> String { Template(text ?? "").render(name: "d", index: 1, id: "d-1") }
        #expect(render(scenario.broker.password) == "Tr0ub{id}")
        #expect(render(scenario.broker.username) == "u{name}-d-1")
        let group = try #require(scenario.groups.first)
        #expect(group.topic.render(name: "d", index: 1, id: "d-1") == "a{index}/d-1/push")
        let signals = DeviceSignals(payload: group.payload, deviceID: "d-1", index: 1, seed: 1, sampleInterval: nil)
        var buffer = PayloadBuffer()
        signals.encode(elapsed: 0, wallClock: 0, into: &buffer)
        #expect(buffer.text == "{{v}} l{id}{{x}-1 d-1")
        #expect(render(try load(yaml, environment: environment.merging(["PW": "p{w}d"]) { $1 }).broker.password) == "p{w}d")
    }

    @Test func whatTheCommandLineGivesIsLeftOutUnread() throws {
        let scenario = try ScenarioLoader.load(
            bytes: Array(text.utf8), file: "test.yaml", environment: [:], overridden: ["broker.host", "broker.port"],
            generators: .test)
        #expect(scenario.broker.host == nil && scenario.broker.port == nil)
        #expect(scenario.broker.password == "", "what no flag gives is still read")
    }

    /// One cause, one error: not also "expected a whole number for 'count'" at the same place.
    @Test func anUnsetVariableIsOneErrorWhateverItsKeyExpects() {
        let text = """
            devices:
              - name: d
                count: ${DEVICES}
                topic: t
                publish: 1/s
                payload: { fields: { x: { accelerometer: x } } }
            """
        #expect(
            problems(text, environment: [:]) == [
                "test.yaml:3:12: environment variable 'DEVICES' is not set; set it or write ${DEVICES:-default}"
            ])
    }

    @Test func keysAreNotInterpolated() {
        #expect(
            problems("${X}: 1\n" + minimalDevices, environment: ["X": "name"]).first?
                .hasPrefix("test.yaml:1:1: unknown key '${X}'") == true)
    }

    @Test func interpolatedValueIsStillChecked() {
        #expect(
            problems(text, environment: ["HOST": "h", "PORT": "eighty"]) == [
                "test.yaml:3:9: expected an integer from 1 to 65535 for 'port', found 'eighty'"
            ])
    }
}

@Suite struct TemplateLoadingTests {
    func device(_ lines: String) -> String {
        "devices:\n  - name: d\n    publish: 1/s\n    payload: { fields: { v: { uuid: {} } } }\n" + lines
    }

    @Test func unknownPlaceholder() {
        #expect(
            problems(device("    topic: \"x/{nmae}\"")) == [
                "test.yaml:5:12: unknown placeholder '{nmae}' in 'topic'; did you mean '{name}'?"
            ])
    }

    @Test func idCannotUseItself() {
        #expect(
            problems(device("    topic: t\n    id: \"{id}-{index}\"")) == [
                "test.yaml:6:9: '{id}' cannot be used in 'id', which makes the id; use {name} and {index}"
            ])
    }

    @Test func templatesRender() throws {
        let scenario = try load(device("    topic: \"{name}/{id}/push\"\n    id: \"{name}{index}\"\n    clientId: \"c-{id}\""))
        let group = try #require(scenario.groups.first)
        let id = group.id.render(name: group.name, index: 7, id: nil)
        #expect(id == "d7")
        #expect(group.clientID.render(name: group.name, index: 7, id: id) == "c-d7")
        #expect(group.topic.render(name: group.name, index: 7, id: id) == "d/d7/push")
    }
}
