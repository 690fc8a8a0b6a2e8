import Foundation
import Reactor
import Report
import Scenario
import Simulator
import Testing
import TestSupport

/// Issue 13, item 5: reloads and scales at the awkward moments, against a real mosquitto: before
/// the run, in quick succession while connections cannot leave yet, on a paused group, and
/// racing the run's end.
@Suite(.tags(.integration)) struct FleetReloadTests {
    private static func yaml(field: String, count: Int = 1, publish: String = "10/s") -> String {
        ScenarioText(group: "room", count: count, topic: "fr/{id}", publish: publish, fields: "\(field): { counter: 0 }").text
    }

    private static func plan(_ text: String, port: UInt16) throws -> FleetPlan {
        var settings = RunSettings()
        settings.host = "127.0.0.1"
        settings.port = Int(port)
        return try SimulatorTests.plan(yaml: text, settings: settings)
    }

    /// Clients the broker saw connect, and those it saw go (a probe of the port, `<unknown>`,
    /// is neither).
    private static func allGone(_ log: String) -> (connected: Int, gone: Int) {
        let lines = log.split(separator: "\n")
        return (
            lines.count { $0.contains("New client connected") },
            lines.count {
                !$0.contains("<unknown>")
                    && ($0.hasSuffix(" disconnected.") || $0.hasSuffix(" closed its connection.")
                        || $0.hasSuffix("closing old connection."))
            }
        )
    }

    @Test func aChangeBeforeTheRunIsRefused() throws {
        let broker = try MosquittoBroker()
        let harness = try FleetHarness(Self.yaml(field: "a"), port: broker.port, settings: RunSettings(statsInterval: nil))
        let reload = harness.fleet.reload(to: try Self.plan(Self.yaml(field: "a", count: 2), port: broker.port))
        #expect(reload.error == "the run has not started yet", "\(reload)")
        #expect(throws: GroupCommandError("the run has not started yet")) { try harness.fleet.perform(.scale(count: 3), group: "room") }
        harness.start()
        #expect(TestClock.wait(timeout: 5, interval: 0.02) { harness.fleet.totals.connectionsUp == 1 })
        harness.fleet.requestStop()
        let result = try #require(try harness.result(timeout: 10))
        #expect(result.connections == 1 && result.reloads.count == 1)
    }

    @Test func aGroupUnderDevicesStagesIsNotScaled() throws {
        let broker = try MosquittoBroker()
        let yaml = Self.yaml(field: "a", count: 2).replacingOccurrences(
            of: "    publish: 10/s", with: "    publish: 10/s\n    stages: [{ duration: 1s, devices: 2 }]")
        let harness = try FleetHarness(yaml, port: broker.port, settings: RunSettings(statsInterval: nil))
        harness.start()
        #expect(TestClock.wait(timeout: 5, interval: 0.02) { harness.fleet.totals.connectionsUp == 2 })
        #expect(throws: GroupCommandError("device group 'room' follows 'devices' stages: they set how many of its devices are in")) {
            try harness.fleet.perform(.scale(count: 3), group: "room")
        }
        harness.fleet.requestStop()
        let result = try #require(try harness.result(timeout: 10))
        #expect(result.connections == 2 && result.reloads.isEmpty)
    }

    /// A pause and a resume while the stages have not brought every device in yet: those they
    /// bring in later connect all the same. Those they take out count as paused, so readiness
    /// judges the ones in.
    @Test func aPauseWhileTheStagesGrowTheFleetHoldsNoneBack() throws {
        let broker = try MosquittoBroker()
        let yaml = Self.yaml(field: "a", count: 4).replacingOccurrences(
            of: "    publish: 10/s",
            with:
                "    publish: 10/s\n    stages: [{ duration: 2s, devices: 4 }, { duration: 500ms, devices: 2 }, { duration: 1m, devices: 2 }]"
        )
        let harness = try FleetHarness(yaml, port: broker.port, settings: RunSettings(statsInterval: nil))
        harness.start()
        // Device 1 joins at once; devices 2 to 4 at 0.5, 1 and 1.5 s.
        #expect(TestClock.wait(timeout: 5, interval: 0.01) { harness.fleet.totals.connectionsUp >= 1 })
        _ = try harness.fleet.perform(.pause, group: "room")
        _ = try harness.fleet.perform(.resume, group: "room")
        #expect(
            TestClock.wait(timeout: 10, interval: 0.02) { harness.fleet.totals.connectionsUp == 4 }, "\(harness.fleet.totals.connectionsUp)"
        )
        // From 2.5 s, 2 in, 2 out.
        #expect(TestClock.wait(timeout: 10, interval: 0.02) { harness.fleet.live().readiness.paused == 2 })
        let readiness = harness.fleet.live().readiness
        #expect(TestClock.wait(timeout: 5, interval: 0.02) { harness.fleet.live().readiness.up == 2 }, "\(readiness)")
        #expect(readiness.wanted == 2 && readiness.all == 4, "\(readiness)")
        harness.fleet.requestStop()
        let result = try #require(try harness.result(timeout: 10))
        #expect(result.totals[.skippedOffline] == 0, "\(result.totals)")
    }

    /// The first reload's successor waits for its predecessor, which cannot leave cleanly while
    /// the broker is frozen (its DISCONNECT is stuck behind a full socket); a second reload
    /// retires the successor. A retired successor must not open when its predecessor goes (it
    /// did, and was freed with its timer scheduled). A frozen broker sees the connections in
    /// whatever order it wakes to: that one takes over another is its affair.
    @Test func aSuccessorRetiredWhileItWaitsNeverOpens() throws {
        let broker = try MosquittoBroker()
        let harness = try FleetHarness(Self.yaml(field: "a", publish: "max"), port: broker.port, settings: RunSettings(statsInterval: nil))
        harness.start()
        #expect(TestClock.wait(timeout: 5, interval: 0.02) { harness.fleet.totals.connectionsUp == 1 })
        broker.pause()
        TestClock.sleep(0.5)  // the socket fills
        let first = harness.fleet.reload(to: try Self.plan(Self.yaml(field: "b", publish: "max"), port: broker.port))
        TestClock.sleep(0.1)
        let second = harness.fleet.reload(to: try Self.plan(Self.yaml(field: "c", publish: "max"), port: broker.port))
        #expect(first.changed == ["room"] && second.changed == ["room"], "\(first) \(second)")
        broker.resume()
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { harness.fleet.totals.connectionsUp == 1 }, "\(harness.log.all)")
        TestClock.sleep(0.5)
        #expect(harness.fleet.totals.connectionsUp == 1, "the last plan's connection alone")
        harness.fleet.requestStop()
        let result = try #require(try harness.result(timeout: 15))
        #expect(result.connectionsUpAtEnd == 1 && result.connections == 1)
        TestClock.sleep(0.5)
        let (connected, gone) = Self.allGone(broker.log)
        #expect(connected == gone, "\(connected) \(gone) \(broker.log)")
    }

    @Test func aPausedGroupsNewConnectionsStartPaused() throws {
        let broker = try MosquittoBroker()
        let harness = try FleetHarness(Self.yaml(field: "a"), port: broker.port, settings: RunSettings(statsInterval: nil))
        harness.start()
        #expect(TestClock.wait(timeout: 5, interval: 0.02) { harness.fleet.totals.connectionsUp == 1 })
        _ = try harness.fleet.perform(.pause, group: "room")
        #expect(TestClock.wait(timeout: 5, interval: 0.02) { harness.fleet.totals.connectionsUp == 0 })
        let reload = harness.fleet.reload(to: try Self.plan(Self.yaml(field: "a", count: 3), port: broker.port))
        #expect(reload.scaled == ["room"], "\(reload)")
        #expect(TestClock.wait(timeout: 5, interval: 0.02) { harness.fleet.totals.connectionsPaused == 3 })
        TestClock.sleep(0.5)
        let paused = harness.fleet.totals
        #expect(paused.connectionsUp == 0 && paused.connectionsPaused == 3, "a paused group's new devices sleep too")
        _ = try harness.fleet.perform(.resume, group: "room")
        #expect(TestClock.wait(timeout: 5, interval: 0.02) { harness.fleet.totals.connectionsUp == 3 })
        harness.fleet.requestStop()
        let result = try #require(try harness.result(timeout: 10))
        #expect(result.totals.connectionsPaused == 0 && result.totals.accountsForEveryTick, "\(result.totals)")
    }

    /// Reloads every few milliseconds while the run ends: the end waits for every connection
    /// made, and none is left connected.
    @Test func reloadsRacingTheEndLeaveNoConnectionBehind() throws {
        let broker = try MosquittoBroker()
        let harness = try FleetHarness(Self.yaml(field: "a", count: 4), port: broker.port, settings: RunSettings(statsInterval: nil))
        harness.start()
        #expect(TestClock.wait(timeout: 5, interval: 0.02) { harness.fleet.totals.connectionsUp == 4 })
        let plans = [
            try Self.plan(Self.yaml(field: "b", count: 4), port: broker.port),
            try Self.plan(Self.yaml(field: "a", count: 4), port: broker.port),
        ]
        let stop = Locked(false)
        let fleet = harness.fleet
        let reloading = DispatchSemaphore(value: 0)
        // A thread of its own: a blocked worker of Dispatch's may not be replaced soon.
        Thread {
            var index = 0
            while !stop.withLock({ $0 }) {
                fleet.reload(to: plans[index % 2])
                index += 1
                usleep(2000)
            }
            reloading.signal()
        }.start()
        TestClock.sleep(0.3)
        fleet.requestStop()
        let result = try #require(try harness.result(timeout: 20))
        stop.withLock { $0 = true }
        _ = reloading.wait(timeout: .now() + 5)
        #expect(result.reloads.count > 10, "\(result.reloads.count) reloads")
        #expect(fleet.reload(to: plans[0]).error == "the run is ending", "a reload after the end began is refused")
        #expect(
            TestClock.wait(timeout: 5, interval: 0.05) {
                let (c, g) = Self.allGone(broker.log)
                return c == g
            },
            "\(Self.allGone(broker.log)) \(broker.log.suffix(3000))")
    }

    @Test func aSuccessorTakesOverAClientIDFromAnotherGroup() throws {
        let group = { (name: String) in
            "devices:\n  - name: \(name)\n    clientId: shared-client\n    topic: t\n    publish: 1/s\n    payload: { fields: { v: { counter: 0 } } }\n"
        }
        let before = try SimulatorTests.plan(yaml: group("old"), file: "a.yaml")
        let after = try SimulatorTests.plan(yaml: group("new"), file: "a.yaml")
        let running = before.groupPlans.map { FleetChange.Running(plan: $0, connections: Set(before.connections.map(\.key))) }
        let change = FleetChange(running: running, new: after)
        let added = try #require(change.groups.first { $0.kind == .added })
        #expect(added.opening.first?.replaces == before.connections.first?.key, "the broker knows no groups: it waits all the same")
    }
}
