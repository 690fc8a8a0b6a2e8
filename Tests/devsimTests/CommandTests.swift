import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 14, item 3: devices that answer commands, end to end against mosquitto, with a
/// subscriber confirming what each command did.
@Suite(.tags(.integration), .notUnitOnly) struct CommandTests {
    /// Devices that publish once every 5 s, so that what follows a command at once is its answer.
    static func scenario(topic: String, response: String? = nil) -> String {
        """
        broker: { reconnect: { initial: 200ms, max: 400ms } }
        devices:
          - name: thermostat
            topic: "cmd/{id}/state"
            publish: 1/5s
            commands: { topic: "\(topic)"\(response.map { ", response: \"\($0)\"" } ?? "") }
            payload:
              style: flat
              fields:
                target: { randomWalk: { mean: 20, step: 0.001, meanReversion: 0.5 }, min: 10, max: 30, decimals: 2, command: { setpoint: 30/min } }
                light: { bool: 0, command: set }
                mode: { choice: { values: [heat, cool] }, command: set }
                seq: { counter: 0 }
        """
    }

    private static func send(_ port: UInt16, _ topic: String, _ message: String) throws {
        let result = try MosquittoPub.run(port: port, ["-t", topic, "-m", message], timeout: 10)
        #expect(result.status == 0, "\(result.stderr)")
    }

    private static func state(_ message: Subscriber.Message) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any]) ?? [:]
    }

    @Test func setsSetpointsRatesAndRejectionsOverJSON() throws {
        let broker = try MosquittoBroker()
        let states = try Subscriber(port: broker.port, topic: "cmd/+/state")
        let file = try RunFiles.scenario("commands.yaml", Self.scenario(topic: "cmd/{id}/set"))
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port, report: true)
        #expect(devsim.waitForOutput(containing: "connected", inStderr: true, timeout: 10), "\(devsim.stderr)")
        #expect(TestClock.wait(timeout: 5, interval: 0.05) { !states.messages.isEmpty }, "the first tick at the CONNACK")
        TestClock.sleep(0.3)  // the subscription is made after the CONNACK

        try Self.send(broker.port, "cmd/thermostat-1/set", #"{"light": "ON", "mode": "cool"}"#)
        #expect(TestClock.wait(timeout: 3, interval: 0.02) { states.messages.count == 2 }, "answered at once, before the next tick")
        let answer = Self.state(states.messages[1])
        #expect(answer["light"] as? Bool == true && answer["mode"] as? String == "cool", "\(answer)")

        // Rejected, each for its reason; the second of a reason is counted, not logged again.
        for message in [#"{"mode": "dry"}"#, #"{"mode": "wet"}"#, #"{"target": 99}"#, "not json", #"{"light": false, "target": 5}"#] {
            try Self.send(broker.port, "cmd/thermostat-1/set", message)
        }
        try Self.send(broker.port, "cmd/thermostat-1/set", #"{"target": 25, "rate": "4/s"}"#)
        #expect(TestClock.wait(timeout: 3, interval: 0.02) { states.messages.count == 3 })
        #expect(Self.state(states.messages[2])["light"] as? Bool == true, "a rejected command changed nothing")
        // The setpoint is followed at 0.5 a second, from 20 to 25 in 10 s; the new rate, 4 a
        // second, from the tick that was pending (5 s after the last).
        let targets = { states.messages.dropFirst(3).compactMap { Self.state($0)["target"] as? Double } }
        #expect(TestClock.wait(timeout: 15, interval: 0.1) { targets().contains { abs($0 - 25) < 0.05 } }, "there: \(targets())")
        let climb = targets()
        #expect(climb.first.map { $0 < 24 } == true, "on its way at first: \(climb)")
        #expect(zip(climb, climb.dropFirst()).allSatisfy { $1 >= $0 - 0.05 }, "rising toward it, not jumping: \(climb)")
        // At the old rate, one in 5 s; at the new, six in 1.5 s: three is beyond doubt.
        let before = states.messages.count
        TestClock.sleep(1.5)
        #expect(states.messages.count - before >= 3, "4 a second: \(states.messages.count - before) in 1.5 s")

        #expect(devsim.terminate(grace: 10) == 0, "\(devsim.stderr)")
        let report = try RunFiles.report(file + ".json")
        let commands = report["commands"] as? [String: Int]
        #expect(commands == ["received": 7, "applied": 2, "rejected": 5, "answered": 2], "\(report)")
        #expect((report["groups"] as? [[String: Any]])?.first?["commands"] as? [String: Int] == commands)
        #expect((report["commandSubscribeLatency"] as? [String: Any])?["count"] as? Int == 1, "one CONNACK, one SUBACK: \(report)")
        #expect(RunFiles.accountsForEveryTick(report), "an answer is no tick: \(report)")
        for reason in [
            "field 'mode' is one of its choices, not 'dry'", "field 'target' is at most 30", "a command is a JSON object",
            "field 'target' is at least 10",
        ] {
            #expect(devsim.stderr.components(separatedBy: "commands: rejected: \(reason)").count == 2, "once: \(reason)\n\(devsim.stderr)")
        }
    }

    /// Home Assistant's way: each field's bare value on a topic of its own; and the devices
    /// subscribe again after the broker restarts.
    @Test func bareValuesOnFieldTopicsSurviveABrokerRestart() throws {
        let broker = try MosquittoBroker()
        let states = try Subscriber(port: broker.port, topic: "cmd/+/state")
        let file = try RunFiles.scenario("fields.yaml", Self.scenario(topic: "cmd/{id}/set/{field}"))
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port)
        #expect(devsim.waitForOutput(containing: "connected", inStderr: true, timeout: 10), "\(devsim.stderr)")
        TestClock.sleep(0.5)
        try Self.send(broker.port, "cmd/thermostat-1/set/light", "ON")
        #expect(TestClock.wait(timeout: 3, interval: 0.02) { states.messages.contains { Self.state($0)["light"] as? Bool == true } })
        try broker.restart()
        #expect(devsim.waitForOutput(containing: "reconnected", inStderr: true, timeout: 15), "\(devsim.stderr)")
        let restarted = try Subscriber(port: broker.port, topic: "cmd/+/state")
        TestClock.sleep(0.5)
        try Self.send(broker.port, "cmd/thermostat-1/set/light", "OFF")
        #expect(
            TestClock.wait(timeout: 3, interval: 0.02) { restarted.messages.contains { Self.state($0)["light"] as? Bool == false } },
            "subscribed again after the restart: \(restarted.messages.map(\.payloadText))")
        #expect(devsim.terminate(grace: 10) == 0, "\(devsim.stderr)")
    }

    /// MQTT 5's request and response: the answer goes to the request's response topic, with its
    /// correlation data.
    @Test func anMQTT5RequestIsAnsweredWithItsCorrelationData() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario(
            "v5.yaml",
            "broker: { protocol: mqtt5 }\n"
                + Self.scenario(topic: "cmd/{id}/set").replacingOccurrences(
                    of: "broker: { reconnect: { initial: 200ms, max: 400ms } }\n", with: ""))
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port)
        #expect(devsim.waitForOutput(containing: "connected", inStderr: true, timeout: 10), "\(devsim.stderr)")
        TestClock.sleep(0.5)
        // mosquitto_rr: a request, and the one response it waits for, printed with its properties.
        let answers = try DevsimProcess.runToCompletion(
            executable: "/usr/bin/mosquitto_rr",
            args: [
                "-h", "127.0.0.1", "-p", String(broker.port), "-t", "cmd/thermostat-1/set", "-e", "replies/me", "-m", #"{"mode": "heat"}"#,
                "-D", "publish", "correlation-data", "req-7", "-W", "5", "-F", "%D %p",
            ], timeout: 10)
        #expect(answers.status == 0, "\(answers.stderr)")
        #expect(answers.stdout.hasPrefix("req-7 {"), "the correlation data comes back: \(answers.stdout)")
        #expect(answers.stdout.contains(#""mode":"heat""#), "\(answers.stdout)")
        #expect(devsim.terminate(grace: 10) == 0, "\(devsim.stderr)")
    }

    /// ThingsBoard's RPC: a request on `…/request/{requestId}` is answered on `…/response/{requestId}`.
    @Test func aRequestIsAnsweredUnderItsID() throws {
        let broker = try MosquittoBroker()
        let responses = try Subscriber(port: broker.port, topic: "v1/devices/me/rpc/response/+")
        let file = try RunFiles.scenario(
            "rpc.yaml",
            Self.scenario(topic: "v1/devices/me/rpc/request/{requestId}", response: "v1/devices/me/rpc/response/{requestId}"))
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port)
        #expect(devsim.waitForOutput(containing: "connected", inStderr: true, timeout: 10), "\(devsim.stderr)")
        TestClock.sleep(0.5)
        try Self.send(broker.port, "v1/devices/me/rpc/request/42", #"{"method": "mode", "params": "heat"}"#)
        try Self.send(broker.port, "v1/devices/me/rpc/request/43", #"{"method": "mode", "params": "dry"}"#)
        try Self.send(broker.port, "v1/devices/me/rpc/request/44", #"{"method": "get"}"#)
        #expect(TestClock.wait(timeout: 5, interval: 0.02) { responses.messages.count == 3 }, "\(responses.messages.map(\.topic))")
        let byID = Dictionary(responses.messages.map { ($0.topic.split(separator: "/").last.map(String.init) ?? "", $0) }) { first, _ in
            first
        }
        #expect(byID["42"].map(Self.state)?["mode"] as? String == "heat")
        #expect(byID["43"]?.payloadText == #"{"error":"field 'mode' is one of its choices, not 'dry'"}"#)
        #expect(byID["44"].map(Self.state)?["mode"] as? String == "heat", "get answers with the state")
        #expect(devsim.terminate(grace: 10) == 0, "\(devsim.stderr)")
    }

    /// Issue 24, item 9: each request is received once and answered once, though an applied
    /// one's answer is two messages (the state on the device's topic and the reply) and a
    /// rejected one's a reply alone.
    @Test func eachRequestIsReceivedAndAnsweredOnce() throws {
        let broker = try MosquittoBroker()
        let responses = try Subscriber(port: broker.port, topic: "v1/devices/me/rpc/response/+")
        let file = try RunFiles.scenario(
            "once.yaml",
            Self.scenario(topic: "v1/devices/me/rpc/request/{requestId}", response: "v1/devices/me/rpc/response/{requestId}"))
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port, report: true)
        #expect(devsim.waitForOutput(containing: "connected", inStderr: true, timeout: 10), "\(devsim.stderr)")
        TestClock.sleep(0.5)  // the subscription is made after the CONNACK
        let requests = [
            #"{"method": "mode", "params": "heat"}"#, #"{"method": "mode", "params": "dry"}"#, #"{"method": "get"}"#,
            #"{"method": "light", "params": true}"#, #"{"method": "target", "params": 99}"#,
        ]
        for (id, request) in requests.enumerated() { try Self.send(broker.port, "v1/devices/me/rpc/request/\(id)", request) }
        #expect(
            TestClock.wait(timeout: 5, interval: 0.02) { responses.messages.count == requests.count }, "\(responses.messages.map(\.topic))")
        #expect(devsim.terminate(grace: 10) == 0, "\(devsim.stderr)")
        let report = try RunFiles.report(file + ".json")
        #expect(report["commands"] as? [String: Int] == ["received": 5, "applied": 3, "rejected": 2, "answered": 5], "\(report)")
    }
}
