import Foundation
import Testing
import TestSupport

/// Issue 25, item 5: a device a dashboard shows (`discovery`, `availability` or `commands`) says
/// its state at each CONNACK, as Tasmota and Zigbee2MQTT do, instead of leaving Home Assistant at
/// `unknown` until its first tick (up to an hour here, `jitter: 1h`); the state is no tick, and a
/// tick due at the CONNACK (`jitter: none`) is the state itself.
@Suite(.tags(.integration), .notUnitOnly) struct StateAtConnectTests {
    /// Each group ticks once an hour, its first tick put off by up to an hour: with seed 1 none
    /// falls within the test, so every message on a device's topic is a state. After the
    /// broker's restart the devices wait 2.4 s or more to come back, time for the second
    /// subscriber to be in place: the states are not retained.
    static let scenario = """
        broker: { reconnect: { initial: 3s, max: 3s } }
        defaults:
          publish: 1/1h
          jitter: 1h
          payload: { style: flat, fields: { n: { counter: 0 }, on: { bool: 0, command: set } } }
        devices:
          - name: discovered
            topic: "st/{id}/state"
            discovery: homeassistant
          - name: available
            topic: "st/{id}/state"
            availability: { topic: "st/{id}/status" }
          - name: commanded
            topic: "st/{id}/state"
            commands: { topic: "st/{id}/set" }
          - name: plain
            topic: "st/{id}/state"
          - name: prompt
            topic: "st/{id}/state"
            availability: { topic: "st/{id}/status" }
            jitter: none
        """

    static let shown = ["st/discovered-1/state", "st/available-1/state", "st/commanded-1/state", "st/prompt-1/state"]

    @Test func aDashboardsDeviceSaysItsStateAtEachConnack() throws {
        let broker = try MosquittoBroker()
        let first = try Subscriber(port: broker.port, topic: "st/+/state")
        let file = try RunFiles.scenario("states.yaml", Self.scenario)
        defer { RunFiles.removeFolder(of: file) }
        let report = URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("report.json").path
        let devsim = try DevsimRun.start(file, port: broker.port, ["--seed", "1", "--report", report])
        let arrived = { (subscriber: Subscriber) in Set(subscriber.messages.map(\.topic)) }
        #expect(
            TestClock.wait(timeout: 10, interval: 0.02) { arrived(first) == Set(Self.shown) },
            "a state from each device a dashboard shows: \(arrived(first))\n\(devsim.stderr)")
        #expect(first.messages.filter { $0.topic == "st/prompt-1/state" }.count == 1, "its first tick, and no state beside it")
        for message in first.messages {
            let state = try JSONSerialization.jsonObject(with: Data(message.payloadText.utf8)) as? [String: Any]
            #expect(state?["n"] != nil && state?["on"] as? Bool == false, "the device's payload: \(message.payloadText)")
        }

        // Again at the next CONNACK.
        try broker.restart()
        let second = try Subscriber(port: broker.port, topic: "st/+/state")
        #expect(
            TestClock.wait(timeout: 15, interval: 0.02) { arrived(second) == Set(Self.shown) },
            "again after the broker's restart: \(arrived(second))\n\(devsim.stderr)")
        #expect(devsim.terminate(grace: 10) == 0, "\(devsim.stderr)")
        #expect(!arrived(first).contains("st/plain-1/state") && !arrived(second).contains("st/plain-1/state"), "no dashboard, no state")

        // Three states at the first CONNACK, four at the second, and one tick: the prompt device's
        // first. The others' schedules kept their phase.
        let figures = try RunFiles.report(report)
        #expect(figures["stateMessages"] as? Int == 7, "\(figures["stateMessages"] ?? "none")")
        #expect(figures["scheduled"] as? Int == 1 && figures["published"] as? Int == 1)
        #expect(RunFiles.accountsForEveryTick(figures))
    }
}
