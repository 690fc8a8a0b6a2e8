import MQTT
import Foundation
import Report
import Scenario
import Simulator
import Testing

private let twoGroups = """
    name: site
    devices:
      - name: fast
        count: 3
        topic: "f/{id}"
        publish: 10/s
        payload: { fields: { seq: { counter: 0 } } }
      - name: slow
        count: 2
        topic: "s/{id}"
        publish: 1/5s
        connection: { shared: 1 }
        payload: { fields: { seq: { counter: 0 } } }
    """

private let otherFile = """
    name: other
    devices:
      - name: meter
        count: 2
        topic: "m/{id}"
        publish: 2/s
        payload: { fields: { seq: { counter: 0 } } }
    """

@Suite struct FleetPlanTests {
    @Test func groupsOfOneFileAndSeveralFilesMakeOneFleetWithUniqueClientIDs() throws {
        let plan = FleetPlan(
            scenarios: [try scenario(yaml: twoGroups, file: "a.yaml"), try scenario(yaml: otherFile, file: "b.yaml")],
            settings: RunSettings())
        #expect(plan.conflicts.isEmpty)
        #expect(plan.deviceCount == 7)
        let clientIDs = plan.connections.compactMap(\.options.clientID)
        #expect(clientIDs == ["fast-1", "fast-2", "fast-3", "site-slow-shared-1", "meter-1", "meter-2"])
        let rates = Dictionary(plan.connections.flatMap(\.devices).map { ($0.id, $0.perSecond) }) { first, _ in first }
        #expect(rates == ["fast-1": 10, "fast-2": 10, "fast-3": 10, "slow-1": 0.2, "slow-2": 0.2, "meter-1": 2, "meter-2": 2])
    }

    @Test func oneClientIDInTwoFilesIsAClashNamingBoth() throws {
        let plan = FleetPlan(
            scenarios: [
                try scenario(yaml: twoGroups, file: "a.yaml"),
                try scenario(yaml: twoGroups.replacingOccurrences(of: "name: site", with: "name: copy"), file: "b.yaml"),
            ],
            settings: RunSettings())
        // Both groups' device ids clash; the shared connection's client id carries the scenario's
        // name, so only the per-device group's client ids do.
        #expect(
            plan.conflicts.map(\.description) == [
                "b.yaml:3:5: device id 'fast-1' of device group 'fast' is also used by device group 'fast' at a.yaml:3:5; "
                    + "two devices with one id draw the same values at the same instants: give the groups different names, or different 'id' templates",
                "b.yaml:8:5: device id 'slow-1' of device group 'slow' is also used by device group 'slow' at a.yaml:8:5; "
                    + "two devices with one id draw the same values at the same instants: give the groups different names, or different 'id' templates",
                "b.yaml:3:5: client id 'fast-1' of device group 'fast' is also used by device group 'fast' at a.yaml:3:5; "
                    + "two clients with one id knock each other off the broker: give the groups different names, or different 'clientId' templates",
                "b.yaml:3:5: device group name 'fast' is also used at a.yaml:3:5; a run keeps each group's figures under its name: "
                    + "give the groups different names",
                "b.yaml:8:5: device group name 'slow' is also used at a.yaml:8:5; a run keeps each group's figures under its name: "
                    + "give the groups different names",
            ])
    }

    /// Each file's loader refuses two groups of one name; two files' groups may have different
    /// ids and still one name, under which the report and `/metrics` would show both.
    @Test func oneGroupNameInTwoFilesIsAClash() throws {
        let renamed = otherFile.replacingOccurrences(of: "name: meter", with: "name: fast\n    id: \"m-{index}\"")
        let plan = FleetPlan(
            scenarios: [try scenario(yaml: twoGroups, file: "a.yaml"), try scenario(yaml: renamed, file: "b.yaml")], settings: RunSettings()
        )
        #expect(
            plan.conflicts.map(\.description) == [
                "b.yaml:3:5: device group name 'fast' is also used at a.yaml:3:5; a run keeps each group's figures under its name: "
                    + "give the groups different names"
            ])
    }

    @Test func oneDeviceIDForAWholeGroupIsAClash() throws {
        let yaml = otherFile.replacingOccurrences(of: "count: 2", with: "count: 2\n    id: sensor\n    clientId: \"c-{index}\"")
        let plan = FleetPlan(scenarios: [try scenario(yaml: yaml, file: "c.yaml")], settings: RunSettings())
        #expect(
            plan.conflicts.map(\.description) == [
                "c.yaml:3:5: device id 'sensor' is used by more than one device of device group 'meter'; "
                    + "two devices with one id draw the same values at the same instants: put {index} in 'id'"
            ])
    }

    @Test func oneClientIDForAWholeGroupIsAClash() throws {
        let yaml = otherFile.replacingOccurrences(of: "count: 2", with: "count: 2\n    clientId: fixed")
        let plan = FleetPlan(scenarios: [try scenario(yaml: yaml, file: "c.yaml")], settings: RunSettings())
        #expect(
            plan.conflicts.map(\.description) == [
                "c.yaml:3:5: client id 'fixed' is used by more than one device of device group 'meter'; "
                    + "two clients with one id knock each other off the broker: put {id} or {index} in 'clientId'"
            ])
    }

    /// Issue 24, item 9: a device whose command topic takes in its own state counted each of its
    /// ticks as a command received, and one that takes in its own replies answered them as new
    /// requests without end (one request: 48 received in 2 s).
    @Test func aCommandTopicThatHearsTheDeviceItselfIsAClash() throws {
        let group = { (topic: String, commands: String) in
            """
            devices:
              - name: lamp
                topic: "\(topic)"
                publish: 1/s
                commands: \(commands)
                payload: { style: flat, fields: { light: { bool: 0, command: set } } }
            """
        }
        let conflicts = { (topic: String, commands: String) in
            FleetPlan(scenarios: [try scenario(yaml: group(topic, commands), file: "c.yaml")], settings: RunSettings()).conflicts.map(
                \.description)
        }
        #expect(
            try conflicts("dev/{id}/state", #"{ topic: "dev/{id}/{field}" }"#) == [
                "c.yaml:2:5: device group 'lamp' listens for commands on 'dev/lamp-1/+', which takes in its own 'dev/lamp-1/state': "
                    + "what a device publishes would come back to it as a command; give the commands a topic of their own"
            ])
        #expect(
            try conflicts("dev/{id}/state", #"{ topic: "rpc/{id}/{requestId}", response: "rpc/{id}/re-{requestId}" }"#) == [
                "c.yaml:2:5: device group 'lamp' listens for commands on 'rpc/lamp-1/+', which takes in its own "
                    + "'rpc/lamp-1/re-{requestId}': what a device publishes would come back to it as a command; give the commands "
                    + "a topic of their own"
            ])
        #expect(try conflicts("dev/{id}/state", #"{ topic: "dev/{id}/set/{field}" }"#).isEmpty)
        #expect(
            try conflicts(
                "v1/devices/me/telemetry",
                #"{ topic: "v1/devices/me/rpc/request/{requestId}", response: "v1/devices/me/rpc/response/{requestId}" }"#
            ).isEmpty)
    }

    @Test func startDelaysAreFixedBySeedAndIDAndStayUnderTheJitter() {
        let ids = (1...200).map { "dev-\($0)" }
        let delays = ids.map { DevicePlan.startDelay(jitter: 2, seed: 7, deviceID: $0) }
        #expect(delays == ids.map { DevicePlan.startDelay(jitter: 2, seed: 7, deviceID: $0) })
        #expect(delays.allSatisfy { $0 >= 0 && $0 < 2 })
        #expect(Set(delays).count == ids.count)
        // Spread over the whole range, not bunched.
        #expect(delays.min()! < 0.2 && delays.max()! > 1.8)
        #expect(delays != ids.map { DevicePlan.startDelay(jitter: 2, seed: 8, deviceID: $0) })
        #expect(DevicePlan.startDelay(jitter: 0, seed: 7, deviceID: "dev-1") == 0)
    }

    @Test func jitterAutoIsUpToOnePublishInterval() throws {
        let yaml = twoGroups.replacingOccurrences(of: "name: site", with: "name: site\ndefaults: { jitter: auto }")
        let plan = FleetPlan(scenarios: [try scenario(yaml: yaml, file: "a.yaml")], settings: RunSettings(seed: 3))
        for device in plan.connections.flatMap(\.devices) {
            #expect(device.startDelay >= 0 && device.startDelay < 1 / device.perSecond)
            #expect(device.startDelay == DevicePlan.startDelay(jitter: 1 / device.perSecond, seed: 3, deviceID: device.id))
        }
        let none = twoGroups.replacingOccurrences(of: "name: site", with: "name: site\ndefaults: { jitter: none }")
        let withoutJitter = FleetPlan(scenarios: [try scenario(yaml: none, file: "a.yaml")], settings: RunSettings(seed: 3))
        #expect(withoutJitter.connections.flatMap(\.devices).allSatisfy { $0.startDelay == 0 })
    }

    @Test func theDryRunStartsEachDeviceAtItsDelay() throws {
        let yaml = """
            devices:
              - name: d
                count: 5
                topic: "d/{id}"
                publish: 1/s
                jitter: 1s
                payload: { style: flat, fields: { seq: { counter: 0 } } }
            """
        let plan = FleetPlan(scenarios: [try scenario(yaml: yaml, file: "j.yaml")], settings: RunSettings(seed: 11))
        let devices = plan.connections.flatMap(\.devices)
        var topics: [String] = []
        DryRun(plan: plan, seed: 11, duration: .seconds(2), messages: nil).run { line in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            topics.append(object?["topic"] as? String ?? "")
        }
        // Two ticks each in 2 s (first at the delay < 1 s, second a second later), in delay order.
        let order = devices.sorted { $0.startDelay < $1.startDelay }.map(\.topic)
        #expect(topics == order + order)
        #expect(order != devices.map(\.topic), "with this seed the jitter reorders the devices")
    }

    @Test func sampleShowsTheFirstDeviceOfEveryGroupAsTheDryRunWould() throws {
        let plan = FleetPlan(
            scenarios: [try scenario(yaml: twoGroups, file: "a.yaml"), try scenario(yaml: otherFile, file: "b.yaml")],
            settings: RunSettings(seed: 5))
        let samples = Sample.firstDevices(of: plan, seed: 5, count: 3)
        #expect(samples.map(\.plan.id) == ["fast-1", "slow-1", "meter-1"])
        #expect(
            samples.map { $0.ticks.map(\.payload) }
                == Array(repeating: ["{\"params\":{\"seq\":0}}", "{\"params\":{\"seq\":1}}", "{\"params\":{\"seq\":2}}"], count: 3))
        // The slow group's ticks are 5 s apart from its device's delay in the first interval.
        let slow = samples[1]
        #expect(slow.plan.startDelay > 0 && slow.plan.startDelay < 5)
        #expect(slow.ticks.map(\.seconds) == [0, 5, 10].map { slow.plan.startDelay + $0 })
    }
}

@Suite struct DescriptorLimitTests {
    @Test func aFleetBeyondTheLimitIsRefusedWithWhatItNeeds() {
        #expect(DescriptorLimit.needed(connections: 10_000, perConnection: 3, loops: 2) == 30_068)
        #expect(DescriptorLimit.needed(connections: 10_000, perConnection: 1, loops: 2) == 10_068, "libmosquitto 2.1, no socketpair")
        #expect(throws: DescriptorLimit.Shortage.self) { try DescriptorLimit.raise(toFit: Int(Int32.max), perConnection: 3) }
        #expect((try? DescriptorLimit.raise(toFit: 100, perConnection: 3)) ?? 0 >= 100)
    }
}

/// Issue 12: where a connection goes, from the scenario's `url`, `transport` and `path` and
/// from `--url`.
@Suite struct FleetPlanTransportTests {
    private func options(_ broker: String, url: String? = nil) throws -> ClientOptions {
        let file = "broker: \(broker)\ndevices:\n  - { name: d, topic: t, publish: 1/s, payload: { fields: { v: { constant: 1 } } } }\n"
        var settings = RunSettings()
        settings.url = try url.map(BrokerURL.parse)
        let plan = try plan(yaml: file, file: "s.yaml", settings: settings)
        return plan.connections.first?.options
            ?? ClientOptions(
                host: "", port: 0, cleanSession: true, keepalive: .zero, protocolVersion: .v311, maxInFlight: 0)
    }

    @Test func webSocketsTakeHTTPsPortsAndThePathUnlessTold() throws {
        let plain = try options("{ host: b, transport: websockets }")
        #expect(plain.port == 80 && plain.webSocketPath == "/mqtt" && plain.tls == nil)
        let secure = try options("{ host: b, transport: websockets, tls: { insecure: true } }")
        #expect(secure.port == 443 && secure.libraryTLS == nil, "the bridge makes the TLS, not libmosquitto")
        let told = try options("{ host: b, port: 9001, transport: websockets, path: /ws }")
        #expect(told.port == 9001 && told.webSocketPath == "/ws")
        #expect(try options("{ host: b }").webSocketPath == nil && (try options("{ host: b }")).port == 1883)
    }

    @Test func theCommandLinesURLWinsAndItsSchemeDecidesTLS() throws {
        let fromFlag = try options("{ url: \"mqtts://file.example\", tls: { ca: ca.pem } }", url: "ws://flag.example:8080/mqtt")
        #expect(fromFlag.host == "flag.example" && fromFlag.port == 8080 && fromFlag.webSocketPath == "/mqtt")
        #expect(fromFlag.tls == nil, "ws:// has no TLS, whatever the file's tls says")
        let secure = try options("{ host: file.example, tls: { ca: ca.pem } }", url: "wss://flag.example/mqtt")
        #expect(secure.tls?.ca?.hasSuffix("ca.pem") == true && secure.port == 443, "the file's tls says with what")
        let user = try options("{ host: b, username: file }", url: "mqtt://flag@b")
        #expect(user.username == "flag")
    }
}

/// Issue 14, item 6: a platform that knows a device by its own token (ThingsBoard) gets one per
/// device from the user name's placeholders.
@Suite struct PerDeviceCredentialsTests {
    @Test func theUserNameTakesTheDevicePlaceholders() throws {
        let yaml = """
            broker: { username: "{id}-token" }
            devices:
              - name: boiler
                count: 2
                topic: t
                publish: 1/s
                payload: { fields: { v: { counter: 0 } } }
            """
        let plan = try plan(yaml: yaml, file: "t.yaml")
        #expect(plan.connections.map(\.options.username) == ["boiler-1-token", "boiler-2-token"])
    }
}
