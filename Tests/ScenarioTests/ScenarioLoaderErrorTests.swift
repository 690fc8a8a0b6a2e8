import Foundation
import Testing
@testable import Scenario

@Suite struct ScenarioLoaderErrorTests {
    @Test func everyErrorIsReportedInFileOrder() {
        let text = """
            name: demo
            brokr:
              host: x
            devices:
              - name: phone
                topic: t
                publish: 10/fortnight
                qos: 3
                payload:
                  fields:
                    X: { accelerometer: x }
            """
        #expect(
            problems(text) == [
                "test.yaml:2:1: unknown key 'brokr' in the scenario; did you mean 'broker'?",
                "test.yaml:7:14: expected a rate such as 10/s, 600/min, 10Hz, 1/60s or max, or onChange to send on a change, for 'publish', found '10/fortnight'",
                "test.yaml:8:10: expected 0, 1 or 2 for 'qos', found 3",
            ])
    }

    @Test func syntaxErrorPosition() {
        let found = problems("devices:\n  - name: a\n    topic: [x\n")
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("test.yaml:4:1: YAML syntax error: ") == true)
    }

    @Test func duplicateKey() {
        #expect(
            problems("broker: { host: a, host: b }\n" + minimalDevices) == [
                "test.yaml:1:20: duplicate key 'host' (first at line 1, column 11)"
            ])
    }

    @Test func aBrokerHostThatIsAURLIsAnErrorAtItsPlace() {
        #expect(
            problems("broker:\n  host: mqtts://broker.example:8883\n" + minimalDevices) == [
                "test.yaml:2:9: expected a host name or address for 'host': 'mqtts://broker.example:8883' is a URL, not a host name: "
                    + "give it as a URL (broker.url, --url), or the host alone ('broker.example') and the port on its own"
            ])
    }

    @Test func emptyFile() {
        #expect(problems("") == ["test.yaml:1:1: the file is empty; expected a scenario with 'devices'"])
    }

    @Test func devicesAreRequiredAndNotEmpty() {
        #expect(problems("name: x\n") == ["test.yaml:1:1: missing 'devices' in the scenario (a list of device groups)"])
        #expect(problems("devices: []\n") == ["test.yaml:1:10: expected at least one device group in 'devices', found an empty list"])
    }

    @Test func wrongTypesSayWhatWasExpected() {
        let text = """
            broker:
              port: 70000
              keepalive: 2s
              cleanSession: yes
              protocol: mqtt3
            devices:
              - name: phone
                count: ten
                topic: "a/+/b"
                publish: 1/s
                sample: max
                retain: "true"
                connection: { shared: 0 }
                payload:
                  style: xml
                  fields:
                    X: { accelerometer: x, decimals: 16, noise: -1 }
            """
        #expect(
            problems(text) == [
                "test.yaml:2:9: expected an integer from 1 to 65535 for 'port', found 70000",
                "test.yaml:3:14: expected 0 (no keepalive) or whole seconds from 5s to 65535s for 'keepalive', found '2s'",
                "test.yaml:4:17: expected true or false for 'cleanSession', found 'yes'",
                "test.yaml:5:13: expected mqtt31, mqtt311 or mqtt5 for 'protocol', found 'mqtt3'; did you mean 'mqtt31'?",
                "test.yaml:8:12: expected an integer from 1 to 1000000 for 'count', found 'ten'",
                "test.yaml:9:12: expected a topic to publish to, not empty and without the wildcards '+' and '#', for 'topic', found the string \"a/+/b\"",
                "test.yaml:11:13: expected a rate such as 10/s, 600/min, 10Hz or 1/60s for 'sample', found 'max'; 'max' only suits 'publish'",
                "test.yaml:12:13: expected true or false for 'retain', found the string \"true\"",
                "test.yaml:13:27: expected an integer from 1 to 1000000 for 'shared', found 0",
                "test.yaml:15:14: expected milkcocoa, flat, template, perField or raw for 'style', found 'xml'",
                "test.yaml:17:42: expected an integer from 0 to 15 for 'decimals', found 16",
                "test.yaml:17:53: expected a number of at least 0 for 'noise', found '-1'",
            ])
    }

    @Test func missingRequiredKeys() {
        let text = """
            devices:
              - count: 2
            """
        #expect(
            problems(text) == [
                "test.yaml:2:5: missing 'name' in a device group",
                "test.yaml:2:5: missing 'topic' in a device group",
                "test.yaml:2:5: missing 'publish' in a device group",
                "test.yaml:2:5: missing 'payload' in a device group",
            ])
    }

    @Test func unknownKeyWithoutAHintListsTheKnownOnes() {
        #expect(
            problems("zzz: 1\n" + minimalDevices) == [
                "test.yaml:1:1: unknown key 'zzz' in the scenario; expected one of: name, broker, offline, control, stages, defaults, include, devices, subscribers, verify"
            ])
    }

    @Test func groupNamesMustDiffer() {
        let text = minimalDevices + "\n" + minimalDevices.split(separator: "\n").dropFirst().joined(separator: "\n")
        #expect(
            problems(text) == [
                "test.yaml:8:5: device group name 'phone' is already used at line 2; names must differ"
            ])
    }

    @Test func offlineErrors() {
        #expect(
            problems("offline: keep\n" + minimalDevices) == [
                "test.yaml:1:10: expected drop or buffer for 'offline', found 'keep'"
            ])
        #expect(
            problems("offline: { policy: drop, maxMessages: 5 }\n" + minimalDevices) == [
                "test.yaml:1:39: 'maxMessages' bounds the buffer; it applies only with 'policy: buffer'"
            ])
        #expect(
            problems("offline: { policy: buffer, maxBytes: lots }\n" + minimalDevices) == [
                "test.yaml:1:38: expected a size such as 512KB, 64MB or 1GB for 'maxBytes', found 'lots'"
            ])
    }

    @Test func reconnectBounds() {
        #expect(
            problems("broker: { reconnect: { initial: 10s, max: 5s } }\n" + minimalDevices) == [
                "test.yaml:1:43: expected 'initial' (10s) to be at most 'max' (5s) in 'reconnect'"
            ])
    }

    @Test func availabilityIsReadAndNeedsAConnectionPerDevice() throws {
        let group = try #require(
            try load("defaults: { availability: { topic: \"d/{id}/status\", online: up } }\n" + minimalDevices).groups.first)
        #expect(group.availability?.online == "up" && group.availability?.offline == "offline", "from defaults")
        let shared = problems(
            "devices:\n  - { name: d, topic: t, publish: 1/s, connection: { shared: 1 }, availability: { topic: s }, payload: { fields: { v: { constant: 1 } } } }\n"
        )
        #expect(shared.first?.contains("has 'availability' and a shared connection") == true, "\(shared)")
    }

    @Test func controlTopicErrors() throws {
        #expect(try load("control: { topic: devsim/control }\n" + minimalDevices).controlTopic == "devsim/control")
        #expect(
            problems("control: { topic: \"devsim/#\" }\n" + minimalDevices) == [
                "test.yaml:1:19: expected a topic name, without wildcards, for 'topic', found the string \"devsim/#\""
            ])
        #expect(problems("control: {}\n" + minimalDevices).first?.contains("'control'") == true)
    }

    @Test func ackTimeoutErrors() {
        #expect(
            problems("broker: { ackTimeout: 0s }\n" + minimalDevices) == [
                "test.yaml:1:23: expected a duration such as 250ms, 30s, 5m, 1.5h or 2d above zero for 'ackTimeout', found '0s'"
            ])
        #expect(
            problems("broker: { ackTimeout: 1s, onAckTimeout: retry }\n" + minimalDevices) == [
                "test.yaml:1:41: expected count or reconnect for 'onAckTimeout', found 'retry'"
            ])
        #expect(
            problems("broker: { onAckTimeout: reconnect }\n" + minimalDevices) == [
                "test.yaml:1:25: 'onAckTimeout' says what a message waiting longer than 'ackTimeout' does; give 'ackTimeout' too"
            ])
    }

    @Test func unreadableFile() {
        #expect(throws: ScenarioError.self) {
            try ScenarioLoader.load(file: "/nonexistent/devsim.yaml", environment: [:])
        }
        do {
            _ = try ScenarioLoader.load(file: "/nonexistent/devsim.yaml", environment: [:])
        } catch {
            #expect(error.description == "/nonexistent/devsim.yaml:1:1: cannot load the scenario: no such file")
        }
    }

    @Test func badInputNeverCrashes() {
        let inputs = [
            "[", "]", "{", "devices", "devices: 5", "devices: [5]", "devices: [[]]", "- a\n- b",
            "devices: [{ name: [1] }]", "devices: [{ payload: { fields: [1, 2] } }]",
            "? [a]\n: b", "devices: [{ payload: { fields: { X: 5 } } }]",
            "devices: [{ payload: { fields: { X: { accelerometer: [x] } } } }]",
            "\u{0}", "a: &x [*x]", "devices: !!str x", "\"unterminated",
        ]
        for input in inputs {
            #expect(!problems(input).isEmpty, "\(input)")
        }
    }
}

@Suite struct DamagedInputTests {
    static let text = """
        name: demo
        broker: { host: "h", port: 1883, tls: { ca: ca.pem } }
        offline: { policy: buffer, maxBytes: 64MB }
        devices:
          - &d
            name: phone
            topic: "${APP:-demo}/{id}"
            publish: 10Hz
            payload:
              fields:
                X: { accelerometer: x, decimals: 4 }
                T: { sine: { min: 1, max: 2, period: 1h } }
          - <<: *d
            name: tablet
        """

    /// Every one-character deletion and every truncation either loads or gives positioned
    /// errors; none crashes or hangs.
    @Test func everyDeletionAndTruncationIsHandled() {
        let characters = Array(Self.text)
        #expect((try? load(Self.text)) != nil)
        for index in characters.indices {
            var damaged = characters
            damaged.remove(at: index)
            check(String(damaged))
            check(String(characters[..<index]))
        }
    }

    private func check(_ text: String) {
        do {
            _ = try load(text)
        } catch {
            #expect(!error.diagnostics.isEmpty)
            #expect(error.diagnostics.allSatisfy { $0.line >= 1 && $0.column >= 1 })
        }
    }

    @Test func emptyNamesAreRefused() {
        #expect(
            problems(minimalDevices.replacingOccurrences(of: "name: phone", with: "name: \"\"")) == [
                "test.yaml:2:11: expected a non-empty name for 'name', found the string \"\""
            ])
    }
}
