import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 40, item 2: the shipped scripted scenarios (`scenarios/ev-charger.yaml`,
/// `scenarios/firmware-update.yaml`) behave as their comments say, as a subscriber of mosquitto
/// receives them. Each runs the shipped file with its parameters made quick (seconds, not hours).
@Suite(.tags(.integration), .notUnitOnly) struct ScriptedExampleTests {
    static let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scenarios")

    /// The shipped scenario `name`, one device at `publish`, its script by its whole path, and
    /// each of `changes` made (a text found once, and what replaces it): written to a folder of
    /// its own.
    static func shipped(_ name: String, publish: String, changes: [(String, String)]) throws -> String {
        var text = try String(contentsOf: scenarios.appendingPathComponent(name), encoding: .utf8)
        let script = "script: scripts/" + name.replacingOccurrences(of: ".yaml", with: ".lua")
        let publishLine = try #require(text.firstMatch(of: /publish: [^\n]+/)).output
        let countLine = try #require(text.firstMatch(of: /count: \d+/)).output
        for (old, new) in [(script, "script: " + scenarios.path + "/" + script.dropFirst(8)), (String(publishLine), "publish: " + publish)]
            + [(String(countLine), "count: 1")] + changes
        {
            try #require(text.ranges(of: old).count == 1, "'\(old)' once in \(name)")
            text = text.replacingOccurrences(of: old, with: new)
        }
        return try RunFiles.scenario(name, text)
    }

    static func object(_ payload: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any]) ?? [:]
    }

    /// A charger's status messages, in the order they arrived, as objects.
    static func states(_ subscriber: Subscriber) -> [[String: Any]] {
        subscriber.messages.filter { $0.topic == "chargers/charger-1/status" }.map { object($0.payloadText) }
    }

    static func stop(_ devsim: DevsimProcess) {
        devsim.sendSignal(SIGINT)
        #expect(devsim.waitUntilExit(timeout: 20) == 0, "\(devsim.stderr)")
    }

    @Test func aChargerRunsSessionsAtFullPowerThenTaperingToFinishedAndIdle() throws {
        // A car every 0.1 s while free, with a battery of 0.3 kWh (50 kW fills 5 % of it a
        // second), no faults, and half a second plugged in once charged.
        let file = try Self.shipped(
            "ev-charger.yaml", publish: "20/s",
            changes: [
                ("arrivalRate: { constant: 1.5 }", "arrivalRate: { constant: 36000 }"),
                ("faultRate: { constant: 0.1 }", "faultRate: { constant: 0 }"),
                ("battery: { uniform: { min: 40, max: 100 } }", "battery: { constant: 0.3 }"),
                ("stay: { uniform: { min: 120, max: 900 } }", "stay: { constant: 0.5 }"),
            ])
        defer { RunFiles.removeFolder(of: file) }
        let broker = try MosquittoBroker()
        let received = try Subscriber(broker: broker, topic: "chargers/#", qos: 1)
        let devsim = try DevsimRun.start(file, port: broker.port, ["--seed", "5"])
        // A session that was charging, and ended idle: the car left.
        func ended() -> Int? {
            let states = Self.states(received)
            return states.firstIndex { $0["state"] as? String == "charging" }.flatMap { first in
                let session = states[first]["session"] as? Int
                return states[first...].contains { $0["state"] as? String == "idle" && $0["session"] as? Int == session } ? session : nil
            }
        }
        #expect(TestClock.wait(timeout: 90, interval: 0.1) { ended() != nil }, "\(Self.states(received).suffix(3))\n\(devsim.stderr)")
        Self.stop(devsim)
        let session = try #require(ended())
        let states = Self.states(received).filter { $0["session"] as? Int == session }
        let kinds = states.map { $0["state"] as? String ?? "?" }.reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
        #expect(kinds == ["charging", "finished", "idle"], "\(kinds)")
        let charging = states.filter { $0["state"] as? String == "charging" }
        func number(_ state: [String: Any], _ key: String) -> Double { state[key] as? Double ?? .nan }
        // The whole power up to 80 %, and less above (the soc said is after the tick's charge).
        #expect(charging.contains { number($0, "soc") <= 80 })
        #expect(charging.filter { number($0, "soc") <= 80 }.allSatisfy { number($0, "power") == 50 }, "\(charging)")
        let tapering = charging.filter { number($0, "soc") > 81 }
        #expect(!tapering.isEmpty && tapering.allSatisfy { number($0, "power") > 0 && number($0, "power") < 50 }, "\(tapering)")
        #expect(zip(tapering, tapering.dropFirst()).allSatisfy { number($0, "power") >= number($1, "power") }, "\(tapering)")
        // The energy counts up over the session, and the charger's meter with it.
        #expect(zip(charging, charging.dropFirst()).allSatisfy { number($0, "energy") <= number($1, "energy") })
        let finished = try #require(states.first { $0["state"] as? String == "finished" })
        #expect(number(finished, "power") == 0 && number(finished, "energy") > 0)
        #expect(
            abs(number(finished, "meter") - number(charging[0], "meter") - number(finished, "energy") + number(charging[0], "energy"))
                < 0.02)
        let idle = try #require(states.last)
        #expect(number(idle, "power") == 0 && number(idle, "energy") == 0 && idle["soc"] == nil, "\(idle)")
    }

    @Test func aCommandLimitsAChargersPowerAndAnotherStopsItsSession() throws {
        // A battery that charging for minutes hardly moves, so only the command ends its session.
        let file = try Self.shipped(
            "ev-charger.yaml", publish: "20/s",
            changes: [
                ("arrivalRate: { constant: 1.5 }", "arrivalRate: { constant: 36000 }"),
                ("faultRate: { constant: 0.1 }", "faultRate: { constant: 0 }"),
                ("battery: { uniform: { min: 40, max: 100 } }", "battery: { constant: 1000 }"),
                ("stay: { uniform: { min: 120, max: 900 } }", "stay: { constant: 0.5 }"),
            ])
        defer { RunFiles.removeFolder(of: file) }
        let broker = try MosquittoBroker()
        let received = try Subscriber(broker: broker, topic: "chargers/#", qos: 1)
        let devsim = try DevsimRun.start(file, port: broker.port, ["--seed", "5"])
        func arrived(after count: Int = 0, _ condition: ([String: Any]) -> Bool) -> Bool {
            TestClock.wait(timeout: 60, interval: 0.05) { Self.states(received).dropFirst(count).contains(where: condition) }
        }
        #expect(arrived { $0["state"] as? String == "charging" && $0["power"] as? Double == 50 }, "\(devsim.stderr)")
        let set = "chargers/charger-1/set"
        // Refused: below the least a limit leaves; then taken.
        #expect(try MosquittoPub.publish(port: broker.port, topic: set, message: #"{"limit": 3}"#) == 0)
        #expect(devsim.waitForOutput(containing: "limit is a power in kW from 5 to 50", inStderr: true, timeout: 20), "\(devsim.stderr)")
        #expect(try MosquittoPub.publish(port: broker.port, topic: set, message: #"{"limit": 22}"#) == 0)
        #expect(arrived { $0["limit"] as? Double == 22 }, "\(Self.states(received).suffix(3))")
        let limited = Self.states(received).count
        #expect(arrived(after: limited) { _ in true })
        #expect(try MosquittoPub.publish(port: broker.port, topic: set, message: #"{"stop": true}"#) == 0)
        #expect(arrived(after: limited) { $0["state"] as? String == "finished" }, "\(Self.states(received).suffix(3))")
        // The car leaves, the next one plugs in, and the limit holds for it too.
        let session = Self.states(received).last?["session"] as? Int ?? 0
        #expect(
            arrived { $0["state"] as? String == "charging" && $0["session"] as? Int ?? 0 > session }, "\(Self.states(received).suffix(3))")
        Self.stop(devsim)
        let states = Self.states(received)
        let answer = try #require(states.firstIndex { $0["limit"] as? Double == 22 })
        #expect(states[..<answer].allSatisfy { $0["limit"] as? Double == 50 }, "no limit before the command's")
        let after = states[answer...]
        #expect(after.allSatisfy { $0["limit"] as? Double == 22 })
        #expect(after.filter { $0["state"] as? String == "charging" }.allSatisfy { $0["power"] as? Double == 22 }, "\(Array(after))")
        let stopped = try #require(after.firstIndex { $0["state"] as? String == "finished" })
        #expect(states[stopped]["power"] as? Double == 0 && states[stopped]["session"] as? Int == states[answer]["session"] as? Int)
        #expect((states[stopped]["soc"] as? Double ?? 100) < 80, "stopped by the command, not charged full: \(states[stopped])")
    }

    @Test func aChargerFaultsAndClearsAndItsSessionGoesOn() throws {
        // A fault a second while charging, each lasting half a second.
        let file = try Self.shipped(
            "ev-charger.yaml", publish: "20/s",
            changes: [
                ("arrivalRate: { constant: 1.5 }", "arrivalRate: { constant: 36000 }"),
                ("faultRate: { constant: 0.1 }", "faultRate: { constant: 3600 }"),
                ("battery: { uniform: { min: 40, max: 100 } }", "battery: { constant: 1000 }"),
                ("faultTime: { uniform: { min: 60, max: 600 } }", "faultTime: { constant: 0.5 }"),
            ])
        defer { RunFiles.removeFolder(of: file) }
        let broker = try MosquittoBroker()
        let received = try Subscriber(broker: broker, topic: "chargers/#", qos: 1)
        let devsim = try DevsimRun.start(file, port: broker.port, ["--seed", "5"])
        // A fault, and charging after it.
        func cleared() -> (fault: Int, after: Int)? {
            let states = Self.states(received)
            guard let fault = states.firstIndex(where: { $0["state"] as? String == "fault" }),
                let after = states[fault...].firstIndex(where: { $0["state"] as? String == "charging" })
            else { return nil }
            return (fault, after)
        }
        #expect(TestClock.wait(timeout: 60, interval: 0.05) { cleared() != nil }, "\(Self.states(received).suffix(3))\n\(devsim.stderr)")
        Self.stop(devsim)
        let states = Self.states(received)
        let (fault, after) = try #require(cleared())
        let session = states[fault]["session"] as? Int
        #expect(
            states[fault..<after].allSatisfy {
                $0["power"] as? Double == 0 && $0["energy"] as? Double == states[fault]["energy"] as? Double
            })
        #expect(states[after]["session"] as? Int == session && (states[after]["power"] as? Double ?? 0) > 0, "\(states[after])")
    }

    @Test func aPressUpdatedByACommandGoesQuietAndComesBackOnTheNewVersion() throws {
        let file = try Self.shipped(
            "firmware-update.yaml", publish: "20/s", changes: [("updateTime: { constant: 60 }", "updateTime: { constant: 1 }")])
        defer { RunFiles.removeFolder(of: file) }
        let report = file + ".json"
        let broker = try MosquittoBroker()
        let received = try Subscriber(broker: broker, topic: "factory/#", qos: 1)
        let devsim = try DevsimRun.start(file, port: broker.port, ["--seed", "5"], report: true)
        func telemetry() -> [[String: Any]] {
            received.messages.filter { $0.topic == "factory/press-1/telemetry" }.map { Self.object($0.payloadText) }
        }
        #expect(TestClock.wait(timeout: 30, interval: 0.05) { telemetry().count >= 5 }, "\(devsim.stderr)")
        let set = "factory/press-1/set"
        #expect(try MosquittoPub.publish(port: broker.port, topic: set, message: #"{"firmware": "latest"}"#) == 0)
        #expect(try MosquittoPub.publish(port: broker.port, topic: set, message: #"{"firmware": "2.1.0"}"#) == 0)
        #expect(
            TestClock.wait(timeout: 60, interval: 0.05) { telemetry().contains { $0["firmware"] as? String == "2.1.0" } },
            "\(telemetry().suffix(3))\n\(devsim.stderr)")
        #expect(TestClock.wait(timeout: 30, interval: 0.05) { received.messages.contains { $0.topic == "factory/press-1/events" } })
        Self.stop(devsim)
        let states = telemetry()
        let updating = try #require(states.firstIndex { $0["status"] as? String == "updating" })
        #expect(states[..<updating].allSatisfy { $0["status"] as? String == "running" && $0["firmware"] as? String == "1.4.2" })
        #expect(states[updating]["firmware"] as? String == "1.4.2")
        // Said once, then quiet: the next message is the press back on its new version, rebooted.
        let back = states[(updating + 1)...]
        #expect(
            !back.isEmpty && back.allSatisfy { $0["status"] as? String == "running" && $0["firmware"] as? String == "2.1.0" },
            "\(Array(back))")
        #expect((back.first?["uptime"] as? Int ?? .max) < states[updating]["uptime"] as? Int ?? 0, "\(back.first ?? [:])")
        let events = received.messages.filter { $0.topic == "factory/press-1/events" }.map { Self.object($0.payloadText) }
        #expect(events.count == 1)
        #expect(events.first?["event"] as? String == "firmware updated" && events.first?["from"] as? String == "1.4.2")
        #expect(events.first?["to"] as? String == "2.1.0" && events.first?["seconds"] as? Int == 1, "\(events)")
        // The quiet ticks are counted as unchanged; the bad version refused, the good one applied.
        let group = try #require((try RunFiles.report(report)["groups"] as? [[String: Any]])?.first)
        #expect(group["unchanged"] as? Int ?? 0 >= 10, "\(group)")
        let commands = group["commands"] as? [String: Any]
        #expect(commands?["rejected"] as? Int == 1 && commands?["applied"] as? Int == 1, "\(group)")
        #expect(devsim.stderr.contains("firmware is a version such as"), "\(devsim.stderr)")
    }
}
