import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 14, item 4: the per-field style on a real broker: one topic per field, on the device's
/// one connection, each message counted.
@Suite(.tags(.integration), .notUnitOnly) struct PerFieldTopicTests {
    @Test func eachFieldIsAMessageOnItsOwnTopic() throws {
        let broker = try MosquittoBroker()
        let subscriber = try Subscriber(port: broker.port, topic: "pf/#")
        let file = try RunFiles.scenario(
            "perfield.yaml",
            """
            devices:
              - name: room
                topic: "pf/{id}"
                publish: 4/s
                payload:
                  style: perField
                  fields:
                    temperature: { sine: { min: 18, max: 24, period: 1h }, decimals: 1 }
                    occupied: { bool: 0.5 }
                    seq: { counter: 0 }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let run = try DevsimRun(file, port: broker.port, ["--duration", "2s"], report: true)
        #expect(run.status == 0, "\(run.stderr)")
        TestClock.sleep(0.3)
        let byTopic = Dictionary(grouping: subscriber.messages, by: \.topic)
        #expect(Set(byTopic.keys) == ["pf/room-1/temperature", "pf/room-1/occupied", "pf/room-1/seq"], "\(byTopic.keys)")
        #expect(byTopic["pf/room-1/temperature"]?.allSatisfy { Double($0.payloadText) != nil } == true, "a bare number")
        #expect(byTopic["pf/room-1/occupied"]?.allSatisfy { ["true", "false"].contains($0.payloadText) } == true)
        #expect(byTopic["pf/room-1/seq"]?.map(\.payloadText).prefix(3) == ["0", "1", "2"])
        #expect(broker.log.components(separatedBy: " as room-1 (").count - 1 == 1, "the device's one connection")
        let report = try RunFiles.report(file + ".json")
        #expect(report["published"] as? Int == subscriber.messages.count, "each message counted: \(report)")
        #expect(RunFiles.accountsForEveryTick(report) && (report["scheduled"] as? Int ?? 0) % 3 == 0, "\(report)")
    }
}

/// Issue 14, item 4: a state sent when it changes, and on a heartbeat when it does not.
@Suite(.tags(.integration), .notUnitOnly) struct OnChangeTests {
    @Test func aTickIsSentOnAChangeOrAHeartbeat() throws {
        let broker = try MosquittoBroker()
        let subscriber = try Subscriber(port: broker.port, topic: "oc/#")
        let file = try RunFiles.scenario(
            "onchange.yaml",
            """
            devices:
              - name: door
                topic: "oc/{id}"
                publish: 10/s
                onChange: { fields: [open], heartbeat: 1s }
                payload:
                  style: flat
                  fields:
                    open: { constant: false }
                    temperature: { sine: { min: 18, max: 24, period: 1h }, decimals: 3 }
              - name: contact
                topic: "oc/{id}"
                publish: onChange
                onChange: { heartbeat: 1h }
                payload:
                  style: flat
                  fields:
                    open: { dwell: { values: [false, true], min: [1s, 1s], max: [1.5s, 1.5s] } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let run = try DevsimRun(file, port: broker.port, ["--duration", "6s"], report: true)
        #expect(run.status == 0, "\(run.stderr)")
        TestClock.sleep(0.3)
        // The door never changes: its first tick, then one a heartbeat, though its temperature moves.
        let door = subscriber.messages.filter { $0.topic == "oc/door-1" }
        #expect((5...7).contains(door.count), "60 ticks in 6 s, one sent a second: \(door.count)")
        // The contact changes every 1 to 1.5 s and is looked at every second: each message says
        // something new.
        let contact = subscriber.messages.filter { $0.topic == "oc/contact-1" }.map(\.payloadText)
        #expect(contact.count >= 3 && zip(contact, contact.dropFirst()).allSatisfy { $0 != $1 }, "\(contact)")
        let report = try RunFiles.report(file + ".json")
        #expect(RunFiles.accountsForEveryTick(report), "\(report)")
        #expect(report["published"] as? Int == door.count + contact.count && (report["unchanged"] as? Int ?? 0) > 40, "\(report)")
    }
}

/// Fixes from a review of the per-field style and onChange.
@Suite(.tags(.integration), .notUnitOnly) struct OnChangeReviewTests {
    @Test func aStateNotDeliveredIsSentWhenTheBrokerIsBack() throws {
        let broker = try MosquittoBroker()
        broker.stop()
        let file = try RunFiles.scenario(
            "back.yaml",
            """
            broker: { reconnect: { initial: 200ms, max: 400ms } }
            devices:
              - name: door
                topic: "ocb/{id}"
                publish: 10/s
                retain: true
                onChange: { fields: [open], heartbeat: 1h }
                payload: { style: flat, fields: { open: { constant: false } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port, ["--connect-timeout", "30s", "--expect", "rate>=99%"], report: true)
        TestClock.sleep(1)  // the first ticks fall offline
        try broker.restart()
        // devsim may be back before the subscriber is: the state is retained, so that the
        // subscriber gets it whichever comes first.
        let subscriber = try Subscriber(port: broker.port, topic: "ocb/#")
        #expect(
            TestClock.wait(timeout: 10, interval: 0.05) { !subscriber.messages.isEmpty },
            "the state no one received goes out once connected, not an hour later: \(devsim.stderr)")
        TestClock.sleep(1)
        #expect(devsim.terminate(grace: 10) == 0, "rate counts what was to be sent, not what was kept back: \(devsim.stderr)")
        let report = try RunFiles.report(file + ".json")
        #expect(RunFiles.accountsForEveryTick(report) && (report["unchanged"] as? Int ?? 0) > 5, "\(report)")
    }

    @Test func theMessageBudgetCountsMessages() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario(
            "budget.yaml",
            """
            devices:
              - name: room
                topic: "bud/{id}"
                publish: 10/s
                payload: { style: perField, fields: { a: { counter: 0 }, b: { counter: 0 } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let run = try DevsimRun(file, port: broker.port, ["--messages", "3"], report: true)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try RunFiles.report(file + ".json")
        #expect(report["published"] as? Int == 3 && report["scheduled"] as? Int == 3, "a message at a time: \(report)")
        let dry = try DevsimProcess.runToCompletion(args: ["run", file, "--dry-run", "--messages", "3"], timeout: 30)
        #expect(dry.stdout.split(separator: "\n").count == 3, "the dry run counts the same: \(dry.stdout)")
    }

    @Test func aTotalOfItselfIsRefused() throws {
        let file = try RunFiles.scenario(
            "self.yaml",
            """
            devices:
              - name: m
                topic: t
                publish: 1/s
                payload: { fields: { e: { integral: { of: e } }, f: { integral: { of: g } }, g: { integral: { of: f } } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let run = try DevsimProcess.runToCompletion(args: ["validate", file], timeout: 30)
        #expect(
            run.status == 2 && run.stderr.contains("field 'e' adds up itself") && run.stderr.contains("a total cannot be of itself"),
            "\(run.stderr)")
    }
}
