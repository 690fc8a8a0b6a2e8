import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 14, item 2: Home Assistant's MQTT discovery, as a Home Assistant would read it off a
/// real mosquitto: one retained config per entity, with topics the devices really publish on and
/// templates that take the value out of a real payload (rendered with Jinja2, the template
/// engine Home Assistant uses).
@Suite(.tags(.integration), .notUnitOnly) struct DiscoveryTests {
    /// What Home Assistant's MQTT documentation requires of a discovered entity's config, by
    /// component: its `unique_id` and a `device` with `identifiers` (the device registry), and
    /// the component's own required keys. A GPS device_tracker needs no state topic: it reads
    /// `latitude` and `longitude` from its JSON attributes.
    static let required: [String: [String]] = [
        "sensor": ["unique_id", "device", "state_topic"],
        "binary_sensor": ["unique_id", "device", "state_topic"],
        "device_tracker": ["unique_id", "device", "json_attributes_topic"],
    ]

    static let home = """
        name: home
        defaults:
          availability: { topic: "ha/{id}/status" }
          discovery: homeassistant
        devices:
          - name: climate
            count: 2
            topic: "ha/{id}/state"
            publish: 5/s
            payload:
              fields:
                temperature: { randomWalk: { mean: 21, step: 0.1, meanReversion: 0.1 }, decimals: 1, unit: "°C", deviceClass: temperature }
                mode: { choice: { values: [heat, cool, idle] } }
                seq: { counter: 0 }
                ts: { timestamp: ms }
          - name: door
            topic: "ha/{id}/state"
            publish: 5/s
            payload:
              style: flat
              fields:
                "open door": { bool: 0.5, deviceClass: door }
          - name: phone
            topic: "ha/{id}/state"
            publish: 5/s
            payload:
              style: flat
              fields:
                position:
                  fields:
                    lat: { location: { coordinate: latitude, lat: 52.52, lon: 13.40 }, decimals: 6 }
                    lon: { location: { coordinate: longitude, lat: 52.52, lon: 13.40 }, decimals: 6 }
        """

    /// The retained messages under `filter`, as `topic payload` lines.
    static func retained(_ port: UInt16, _ filter: String) throws -> [(topic: String, payload: String)] {
        let result = try DevsimProcess.runToCompletion(
            executable: "/usr/bin/mosquitto_sub",
            args: ["-h", "127.0.0.1", "-p", String(port), "-t", filter, "--retained-only", "-v", "-W", "2"], timeout: 10)
        return result.stdout.split(separator: "\n").map { line in
            let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
    }

    /// Each template rendered by Jinja2 with `value_json` the payload.
    static func render(_ pairs: [(template: String, payload: String)]) throws -> [String] {
        let input = try JSONSerialization.data(withJSONObject: pairs.map { [$0.template, $0.payload] })
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("devsim-jinja-\(UUID().uuidString).json").path
        try input.write(to: URL(fileURLWithPath: file))
        defer { unlink(file) }
        let script = """
            import jinja2, json, sys
            environment = jinja2.Environment()
            for template, payload in json.load(open(sys.argv[1])):
                print(environment.from_string(template).render(value_json=json.loads(payload)))
            """
        let result = try DevsimProcess.runToCompletion(executable: "/usr/bin/python3", args: ["-c", script, file], timeout: 20)
        try #require(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    @Test func oneConfigPerEntityWithTopicsAndTemplatesThatWork() throws {
        let broker = try MosquittoBroker()
        let telemetry = try Subscriber(port: broker.port, topic: "ha/+/state")
        let file = try RunFiles.scenario("home.yaml", Self.home)
        defer { RunFiles.removeFolder(of: file) }
        let run = try DevsimRun(file, port: broker.port, ["--duration", "2s"])
        #expect(run.status == 0, "\(run.stderr)")
        let configs = try Self.retained(broker.port, "homeassistant/#")
        #expect(
            configs.map(\.topic).sorted() == [
                "homeassistant/binary_sensor/door-1/open_door/config",
                "homeassistant/device_tracker/phone-1/location/config",
                "homeassistant/sensor/climate-1/mode/config", "homeassistant/sensor/climate-1/seq/config",
                "homeassistant/sensor/climate-1/temperature/config",
                "homeassistant/sensor/climate-2/mode/config", "homeassistant/sensor/climate-2/seq/config",
                "homeassistant/sensor/climate-2/temperature/config",
            ], "one config per entity, retained; a timestamp is none: \(configs.map(\.topic))")
        var renders: [(template: String, payload: String)] = []
        var expectations: [(component: String, config: [String: Any])] = []
        for (topic, payload) in configs {
            let component = String(topic.split(separator: "/")[1])
            let config = try #require(try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any], "\(payload)")
            for key in Self.required[component] ?? ["?"] { #expect(config[key] != nil, "\(topic) lacks \(key): \(payload)") }
            let device = config["device"] as? [String: Any]
            #expect(
                (device?["identifiers"] as? [String])?.first?.hasPrefix("devsim_") == true && device?["sw_version"] as? String == "0.1.0")
            #expect(config["availability_topic"] as? String == "ha/\(topic.split(separator: "/")[2])/status")
            let stateTopic = (config["state_topic"] ?? config["json_attributes_topic"]) as? String ?? ""
            let payloads = telemetry.messages.filter { $0.topic == stateTopic }
            let sample = try #require(payloads.last, "the devices publish on \(stateTopic)")
            let template = (config["value_template"] ?? config["json_attributes_template"]) as? String ?? ""
            renders.append((template, sample.payloadText))
            expectations.append((component, config))
        }
        let rendered = try Self.render(renders)
        for ((component, config), value) in zip(expectations, rendered) {
            switch component {
            case "sensor" where config["state_class"] != nil:
                #expect(Double(value) != nil, "a number out of the payload: '\(value)' from \(config["value_template"] ?? "")")
            case "sensor":
                #expect(["heat", "cool", "idle"].contains(value), "\(value)")
            case "binary_sensor":
                #expect(value == "ON" || value == "OFF", "\(value)")
            default:
                let attributes = try JSONSerialization.jsonObject(with: Data(value.utf8)) as? [String: Double]
                #expect(attributes?["latitude"].map { abs($0 - 52.52) < 0.1 } == true, "\(value)")
                #expect(attributes?["longitude"] != nil && attributes?["gps_accuracy"] != nil, "\(value)")
            }
        }
        let temperature = try #require(configs.first { $0.topic == "homeassistant/sensor/climate-1/temperature/config" })
        #expect(temperature.payload.contains("\"value_template\":\"{{ value_json.params.temperature }}\""), "the Milkcocoa style")
        #expect(
            temperature.payload.contains("\"unit_of_measurement\":\"°C\",\"device_class\":\"temperature\",\"state_class\":\"measurement\""))
        #expect(configs.contains { $0.payload.contains("\"value_template\":\"{{ 'ON' if value_json['open door'] else 'OFF' }}\"") })
        #expect(configs.contains { $0.payload.contains("\"state_class\":\"total_increasing\"") }, "a counter counts up")
        // Retained by default, so that Home Assistant finds a state when it subscribes late.
        #expect(try Self.retained(broker.port, "ha/+/state").count == 4)
        #expect(try Self.retained(broker.port, "ha/+/status").allSatisfy { $0.payload == "offline" })
    }

    /// A group a reload removes leaves Home Assistant too; the others stay, and without
    /// `--discovery-cleanup` a clean end leaves their entities, unavailable.
    @Test func aGroupThatLeavesTheFleetDeletesItsEntities() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario("home.yaml", Self.home)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port)
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { (try? Self.retained(broker.port, "homeassistant/#").count) == 8 })
        let removed = Self.home.components(separatedBy: "  - name: door\n")
        let rest = try #require(removed.last?.components(separatedBy: "  - name: phone\n"))
        try #require(removed.count == 2 && rest.count == 2)
        try (removed[0] + "  - name: phone\n" + rest[1]).write(toFile: file, atomically: true, encoding: .utf8)
        devsim.sendSignal(SIGHUP)
        #expect(devsim.waitForOutput(containing: "reloaded: removed door", inStderr: true, timeout: 10), "\(devsim.stderr)")
        #expect(
            TestClock.wait(timeout: 5, interval: 0.05) { (try? Self.retained(broker.port, "homeassistant/#").count) == 7 },
            "the door's entity is deleted")
        #expect(try Self.retained(broker.port, "ha/door-1/#").isEmpty, "and what its topics kept")
        #expect(devsim.terminate(grace: 15) == 0, "\(devsim.stderr)")
        #expect(try Self.retained(broker.port, "homeassistant/#").count == 7, "a clean end keeps the entities")
        #expect(try Self.retained(broker.port, "ha/+/status").allSatisfy { $0.payload == "offline" })
    }

    /// Home Assistant says `online` on `homeassistant/status` after every start: the configs come
    /// again, then the states. `--discovery-cleanup` deletes the entities at a clean end.
    @Test func theBirthMessageBringsTheConfigsAgainAndCleanupDeletesThem() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario("home.yaml", Self.home)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port, ["--discovery-cleanup", "--http", "0"])
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { (try? Self.retained(broker.port, "homeassistant/#").count) == 8 })
        let configs = try Subscriber(port: broker.port, topic: "homeassistant/+/+/+/config")
        #expect(TestClock.wait(timeout: 5, interval: 0.05) { configs.messages.count == 8 }, "the retained ones at subscribe")
        let states = try Subscriber(port: broker.port, topic: "ha/door-1/state")
        TestClock.sleep(0.05)
        #expect(
            try MosquittoPub.run(port: broker.port, ["-t", "homeassistant/status", "-m", "online"], timeout: 10).status == 0)
        #expect(
            TestClock.wait(timeout: 5, interval: 0.05) { configs.messages.count == 16 }, "every config again: \(configs.messages.count)")
        #expect(!states.messages.isEmpty)
        // A pause is no leaving: the entities stay, unavailable, under --discovery-cleanup too.
        let port = try #require(ServiceTests.servedPort(devsim), "\(devsim.stderr)")
        #expect(try HTTPGet.request(port: port, path: "/api/groups/door/pause", method: "POST").status == 200)
        #expect(
            TestClock.wait(timeout: 5, interval: 0.05) { (try? Self.retained(broker.port, "ha/door-1/status").first?.payload) == "offline" }
        )
        #expect(try Self.retained(broker.port, "homeassistant/#").count == 8, "a paused device keeps its entities")
        #expect(try HTTPGet.request(port: port, path: "/api/groups/door/resume", method: "POST").status == 200)
        #expect(
            TestClock.wait(timeout: 5, interval: 0.05) { (try? Self.retained(broker.port, "ha/door-1/status").first?.payload) == "online" })
        #expect(devsim.terminate(grace: 15) == 0, "\(devsim.stderr)")
        #expect(try Self.retained(broker.port, "homeassistant/#").isEmpty, "the entities are deleted")
        #expect(try Self.retained(broker.port, "ha/#").isEmpty, "and what their topics kept")
    }
}
