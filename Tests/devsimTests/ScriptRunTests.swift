import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 40, item 2: devices whose logic is a Lua script, run as a user would, against mosquitto.
@Suite(.tags(.integration), .notUnitOnly) struct ScriptRunTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let thermostatScript = repository.appendingPathComponent("scenarios/scripts/thermostat.lua").path

    /// The shipped thermostat script with parameters that move a room in seconds, not hours.
    static func thermostats(count: Int, publish: String = "10/s") -> String {
        """
        devices:
          - name: thermostat
            count: \(count)
            topic: "home/{id}/climate"
            publish: \(publish)
            script: \(thermostatScript)
            commands: { topic: "home/{id}/set" }
            payload:
              style: flat
              fields:
                temperature: { constant: 0, decimals: 2 }
                setpoint: { constant: 20, decimals: 1 }
                heating: { bool: 0 }
                outside: { sine: { min: 2, max: 11, period: 24h }, decimals: 1 }
                heatRate: { constant: 1.5 }
                lossRate: { constant: 0.01 }
                lag: { constant: 0.5 }
        """
    }

    private static func object(_ payload: String) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any]
    }

    @Test func aThermostatReachesTheSetpointACommandMovedItTo() throws {
        let broker = try MosquittoBroker()
        let received = try Subscriber(broker: broker, topic: "home/+/climate")
        let file = try RunFiles.scenario("thermostat.yaml", Self.thermostats(count: 1))
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimProcess(arguments: [
            "run", file, "--host", "127.0.0.1", "--port", String(broker.port), "--seed", "3", "--stats-interval", "0",
        ])
        #expect(received.waitFor(count: 5, timeout: 20), "\(devsim.stderr)")
        #expect(
            try DevsimProcess.runToCompletion(
                executable: "/usr/bin/mosquitto_pub",
                args: ["-h", "127.0.0.1", "-p", String(broker.port), "-q", "1", "-t", "home/thermostat-1/set", "-m", #"{"setpoint": 25}"#],
                timeout: 10
            ).status == 0)
        // The room heats past the old setpoint to the new one, with its hysteresis: within half a
        // degree of 25 and beyond, as the script's thermostat keeps it.
        let reached = TestClock.wait(timeout: 60, interval: 0.1) {
            received.messages.contains { message in
                guard let state = Self.object(message.payloadText), let temperature = state["temperature"] as? Double else { return false }
                return state["setpoint"] as? Double == 25 && temperature >= 24.5
            }
        }
        #expect(reached, "\(received.messages.suffix(5).map(\.payloadText))\n\(devsim.stderr)")
        devsim.sendSignal(SIGINT)
        #expect(devsim.waitUntilExit(timeout: 20) == 0, "\(devsim.stderr)")
        let states = received.messages.compactMap { Self.object($0.payloadText) }
        #expect(states.allSatisfy { $0["heatRate"] == nil && $0["lag"] == nil }, "the script's parameters are not sent")
    }

    /// Per topic, the payloads of `messages`' lines or a subscriber's, in order.
    private static func byTopic(_ messages: [(topic: String, payload: String)]) -> [String: [String]] {
        var topics: [String: [String]] = [:]
        for (topic, payload) in messages { topics[topic, default: []].append(payload) }
        return topics
    }

    @Test func theSameSeedGivesTheSamePayloadsInARunItsDryRunAndTwoShards() throws {
        let file = try RunFiles.scenario("thermostats.yaml", Self.thermostats(count: 4))
        defer { RunFiles.removeFolder(of: file) }
        let broker = try MosquittoBroker()
        func run(_ extra: [String]) throws -> [String: [String]] {
            let received = try Subscriber(broker: broker, topic: "#")
            let run = try DevsimProcess.runToCompletion(
                args: [
                    "run", file, "--host", "127.0.0.1", "--port", String(broker.port), "--seed", "9", "--duration", "3s",
                    "--stats-interval", "0",
                ] + extra, timeout: 60)
            #expect(run.status == 0, "\(run.stderr)")
            // Everything the run published has arrived once a message published after it has.
            let last = "end/\(UUID().uuidString)"
            _ = try DevsimProcess.runToCompletion(
                executable: "/usr/bin/mosquitto_pub", args: ["-h", "127.0.0.1", "-p", String(broker.port), "-t", last, "-m", "end"],
                timeout: 10)
            #expect(TestClock.wait(timeout: 10, interval: 0.05) { received.messages.contains { $0.topic == last } })
            received.stop()
            return Self.byTopic(received.messages.filter { $0.topic.hasPrefix("home/") }.map { ($0.topic, $0.payloadText) })
        }
        let whole = try run([])
        var shards: [String: [String]] = [:]
        for shard in ["0/2", "1/2"] { shards.merge(try run(["--shard", shard])) { $0 + $1 } }
        let dry = try DevsimProcess.runToCompletion(args: ["run", file, "--dry-run", "--seed", "9", "--duration", "3s"], timeout: 30)
        #expect(dry.status == 0, "\(dry.stderr)")
        let shown = Self.byTopic(
            dry.stdout.split(separator: "\n").compactMap { line in
                Self.object(String(line)).flatMap { object in
                    (object["topic"] as? String).flatMap { topic in (object["payload"] as? String).map { (topic, $0) } }
                }
            })
        #expect(whole.count == 4 && Set(whole.keys) == Set(shards.keys) && Set(whole.keys) == Set(shown.keys))
        for (topic, payloads) in whole {
            let length = [payloads.count, shards[topic]?.count ?? 0, shown[topic]?.count ?? 0].min() ?? 0
            #expect(length >= 20, "\(topic)")
            #expect(Array(payloads.prefix(length)) == Array((shards[topic] ?? []).prefix(length)), "\(topic): the run and the shards")
            #expect(Array(payloads.prefix(length)) == Array((shown[topic] ?? []).prefix(length)), "\(topic): the run and its dry run")
        }
    }

    @Test(arguments: [#"os.execute("touch /tmp/devsim-escaped")"#, #"io.open("/etc/passwd")"#, #"require("os")"#])
    func aScriptThatReachesOutOfItsSandboxIsRefusedAtItsLine(call: String) throws {
        let folder = try RunFiles.folder(with: [
            "escape.lua": "-- the first line\nfunction tick(device)\n  \(call)\nend\n",
            "escape.yaml": """
            devices:
              - name: d
                topic: t
                publish: 10/s
                script: escape.lua
                payload: { fields: { n: { counter: 0 } } }
            """,
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("escape.yaml").path
        let script = folder.appendingPathComponent("escape.lua").path
        for command in [["validate", file], ["run", file, "--dry-run", "--messages", "3"]] {
            let result = try DevsimProcess.runToCompletion(args: command, timeout: 30)
            #expect(result.status == 2, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("\(script):3: "), "\(command): \(result.stderr)")
            // The trial before a run refuses: nothing of it is counted.
            #expect(!result.stderr.contains("counted among scriptErrors"), "\(command): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: "/tmp/devsim-escaped"))
    }

    @Test func anEndlessLoopIsStoppedAndCountedAndTheOtherDevicesKeepTheirRate() throws {
        let folder = try RunFiles.folder(with: [
            "spin.lua": """
            function tick(device)
              if device.time > 1 then
                while true do end
              end
            end
            """,
            "spin.yaml": """
            devices:
              - name: spinning
                topic: "s/{id}"
                publish: 10/s
                script: spin.lua
                payload: { fields: { n: { counter: 0 } } }
              - name: plain
                count: 10
                topic: "p/{id}"
                publish: 10/s
                payload: { fields: { n: { counter: 0 } } }
            """,
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let broker = try MosquittoBroker()
        let file = folder.appendingPathComponent("spin.yaml").path
        let report = folder.appendingPathComponent("report.json").path
        let run = try DevsimProcess.runToCompletion(
            args: [
                "run", file, "--host", "127.0.0.1", "--port", String(broker.port), "--duration", "3s", "--report", report,
                "--stats-interval", "0",
            ], timeout: 60)
        #expect(run.status == 0, "\(run.stderr)")
        let script = folder.appendingPathComponent("spin.lua").path
        #expect(run.stderr.contains("\(script):3: the instruction budget of one call is spent"), "\(run.stderr)")
        let groups = try #require(try RunFiles.report(report)["groups"] as? [[String: Any]])
        let spinning = try #require(groups.first { $0["name"] as? String == "spinning" })
        let plain = try #require(groups.first { $0["name"] as? String == "plain" })
        #expect(spinning["scriptErrors"] as? Int == 1, "stopped once, then not called again: \(spinning)")
        #expect(plain["scriptErrors"] == nil || plain["scriptErrors"] as? Int == 0)
        // Every tick of the plain devices was published: none waited behind the loop for long.
        #expect(plain["published"] as? Int == plain["scheduled"] as? Int && (plain["scheduled"] as? Int ?? 0) >= 250, "\(plain)")
    }

    @Test func sampleShowsWhatAScriptPrintsWithItsDevice() throws {
        let folder = try RunFiles.folder(with: [
            "say.lua": "function tick(device)\n  print('tick at', device.time)\nend\n",
            "say.yaml": """
            devices:
              - name: d
                topic: t
                publish: 1/s
                script: say.lua
                payload: { fields: { n: { counter: 0 } } }
            """,
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let sample = try DevsimProcess.runToCompletion(
            args: ["sample", folder.appendingPathComponent("say.yaml").path, "--count", "2", "--seed", "1"], timeout: 30)
        #expect(sample.status == 0, "\(sample.stderr)")
        #expect(sample.stderr.contains("script: tick at\t1") && sample.stderr.contains("device=d-1"), "\(sample.stderr)")
    }
}
