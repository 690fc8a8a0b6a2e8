import Foundation
import Synchronization
import Testing
import TestSupport

/// Issue 28, item 6: `run --verify` on Sparkplug edge nodes against a real mosquitto, judged by
/// each node's seq. Losses and copies are made where a test says, by a relay between devsim and
/// the broker that drops or repeats chosen PUBLISHes (`MQTTRelay`): no broker setting loses QoS 0
/// messages as reliably. What the verifier receives, it weighs against every message the nodes
/// published with a seq: their ticks (`published`), their DBIRTHs (`stateMessages`) and their
/// NBIRTHs (counted here by a subscriber of the broker's own).
@Suite(.tags(.integration), .notUnitOnly) struct SparkplugVerifyRunTests {
    private static let scenario = """
        devices:
          - name: filler
            count: 6
            publish: 10/s
            sparkplug: { groupId: packaging, edgeNodeId: "line-{index}", nodes: 2, reporting: all }
            payload:
              fields:
                speed: { randomWalk: { start: 100, step: 2, min: 50, max: 150 }, decimals: 1 }
                count: { counter: 0 }
        """

    /// What the rules of the relay keep between PUBLISHes.
    private final class Tally: Sendable {
        let state = Mutex<(count: Int, dropping: Bool)>((0, false))

        /// Counts one more; returns the count.
        func next() -> Int {
            state.withLock {
                $0.count += 1
                return $0.count
            }
        }
        var dropping: Bool {
            get { state.withLock { $0.dropping } }
            set { state.withLock { $0.dropping = newValue } }
        }
    }

    /// An NCMD `Node Control/Rebirth` to `node`, straight to the broker.
    private func rebirth(_ node: String, _ broker: MosquittoBroker) throws {
        let file = try RunFiles.scenario("rebirth.bin", "")
        defer { RunFiles.removeFolder(of: file) }
        let payload = try SparkplugPython.encode(#"{"metrics": [{"name": "Node Control/Rebirth", "datatype": 11, "boolean_value": true}]}"#)
        try Data(payload).write(to: URL(fileURLWithPath: file))
        let sent = try MosquittoPub.run(port: broker.port, ["-t", "spBv1.0/packaging/NCMD/\(node)", "-f", file])
        #expect(sent.status == 0, "\(sent.stderr)")
    }

    /// The report's totals and its `verify`, and every message with a seq the nodes published.
    private func figures(_ file: String, births: Subscriber) throws -> (verify: [String: Any], sequenced: Int) {
        let report = try RunFiles.report(file + ".json")
        let verify = try #require(report["verify"] as? [String: Any])
        let nodeBirths = births.messages.filter { $0.topic.contains("/NBIRTH/") }.count
        return (verify, (report["published"] as? Int ?? 0) + (report["stateMessages"] as? Int ?? 0) + nodeBirths)
    }

    /// A clean run, with a rebirth asked by NCMD half-way: nothing lost or repeated, every message
    /// of each node received once, births too, and the latency read from the payloads.
    @Test func aCleanRunWithARebirthLosesNothing() throws {
        let broker = try MosquittoBroker()
        let births = try Subscriber(port: broker.port, topic: "spBv1.0/+/NBIRTH/#")
        let file = try RunFiles.scenario("line.yaml", Self.scenario)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(
            file, port: broker.port, ["--duration", "4s", "--verify", "--expect", "lost==0", "--expect", "duplicated==0"], report: true)
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { births.messages.count == 2 }, "\(devsim.stderr)")
        TestClock.sleep(1)
        try rebirth("line-1", broker)
        #expect(TestClock.wait(timeout: 5, interval: 0.05) { births.messages.count == 3 })
        #expect(devsim.waitUntilExit(timeout: 20) == 0, "\(devsim.stderr)")
        let (verify, sequenced) = try figures(file, births: births)
        #expect(verify["lost"] as? Int == 0 && verify["duplicated"] as? Int == 0 && verify["missedWhileAway"] as? Int == 0, "\(verify)")
        #expect(verify["received"] as? Int == sequenced, "every message with a seq, births included: \(verify)")
        let latency = try #require(verify["e2eLatency"] as? [String: Any], "\(verify)")
        #expect(latency["count"] as? Int == sequenced)
        #expect(!devsim.stderr.contains("counted, not checked"), "\(devsim.stderr)")
    }

    /// Ten DDATA dropped and three sent twice on their way to the broker: ten lost, three
    /// copies, and `--expect lost==0` fails the run.
    @Test func messagesDroppedOnTheWayAreLostAndRepeatedOnesAreCopies() throws {
        let broker = try MosquittoBroker()
        let births = try Subscriber(port: broker.port, topic: "spBv1.0/+/NBIRTH/#")
        let tally = Tally()
        let relay = try MQTTRelay(upstream: broker.port) { topic in
            guard topic.contains("/DDATA/") else { return .pass }
            let number = tally.next()
            return (41...50).contains(number) ? .drop : (81...83).contains(number) ? .repeatOnce : .pass
        }
        let file = try RunFiles.scenario("line.yaml", Self.scenario)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: relay.port, ["--duration", "4s", "--verify", "--expect", "lost==0"], report: true)
        #expect(devsim.waitUntilExit(timeout: 20) == 4, "\(devsim.stderr)")
        #expect(relay.dropped == 10 && relay.repeated == 3)
        let (verify, sequenced) = try figures(file, births: births)
        #expect(verify["lost"] as? Int == 10 && verify["duplicated"] as? Int == 3, "\(verify)")
        #expect(verify["received"] as? Int == sequenced - 10, "\(verify)")
        #expect(verify["missedWhileAway"] as? Int == 0, "\(verify)")
    }

    /// A node's DDATA dropped until its next NBIRTH, which a rebirth asks for: its seq starts
    /// again at the NBIRTH and shows no gap, and what went missing before it is lost all the same,
    /// counted against what the node published.
    @Test func whatIsLostJustBeforeARebirthIsCounted() throws {
        let broker = try MosquittoBroker()
        let births = try Subscriber(port: broker.port, topic: "spBv1.0/+/NBIRTH/#")
        let tally = Tally()
        let relay = try MQTTRelay(upstream: broker.port) { topic in
            guard tally.dropping else { return .pass }
            if topic == "spBv1.0/packaging/NBIRTH/line-1" {
                tally.dropping = false
                return .pass
            }
            return topic.hasPrefix("spBv1.0/packaging/DDATA/line-1/") ? .drop : .pass
        }
        let file = try RunFiles.scenario("line.yaml", Self.scenario)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: relay.port, ["--duration", "4s", "--verify"], report: true)
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { births.messages.count == 2 }, "\(devsim.stderr)")
        TestClock.sleep(0.5)
        tally.dropping = true
        #expect(TestClock.wait(timeout: 5, interval: 0.05) { relay.dropped >= 15 })
        try rebirth("line-1", broker)
        #expect(TestClock.wait(timeout: 5, interval: 0.05) { births.messages.count == 3 })
        #expect(devsim.waitUntilExit(timeout: 20) == 0, "\(devsim.stderr)")
        let dropped = relay.dropped
        #expect(dropped >= 15 && !tally.dropping, "\(dropped)")
        let (verify, sequenced) = try figures(file, births: births)
        #expect(verify["lost"] as? Int == dropped && verify["duplicated"] as? Int == 0, "\(dropped) dropped: \(verify)")
        #expect(verify["received"] as? Int == sequenced - dropped, "\(verify)")
    }

    /// What the nodes publish while the verifier is away (knocked off by a client that takes its
    /// client id) could not reach it: counted apart, not as the broker's loss, as for JSON.
    @Test func whatFellWhileTheVerifierWasAwayIsNotTheBrokersLoss() throws {
        let broker = try MosquittoBroker()
        let births = try Subscriber(port: broker.port, topic: "spBv1.0/+/NBIRTH/#")
        let file = try RunFiles.scenario("line.yaml", "verify: { clientId: checker }\n" + Self.scenario)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port, ["--duration", "4s", "--verify", "--loops", "1"], report: true)
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { births.messages.count == 2 }, "\(devsim.stderr)")
        TestClock.sleep(1)
        // A CONNECT with the verifier's client id: the broker drops the verifier's connection.
        _ = try MosquittoPub.run(port: broker.port, ["-i", "checker", "-t", "x", "-m", "y"], timeout: 10)
        #expect(devsim.waitUntilExit(timeout: 20) == 0, "\(devsim.stderr)")
        #expect(devsim.stderr.contains("verify: subscriber connection lost"), "\(devsim.stderr)")
        let (verify, sequenced) = try figures(file, births: births)
        let received = verify["received"] as? Int ?? 0, lost = verify["lost"] as? Int ?? -1
        let away = verify["missedWhileAway"] as? Int ?? 0
        #expect(away > 0 && received + lost + away == sequenced, "\(verify), with a seq \(sequenced)")
        // What was on its way to it as it went, or published before its loop saw the loss, is
        // counted lost: the messages of a few milliseconds, not of its 100 ms or more away.
        #expect(lost < away, "\(verify)")
        #expect(verify["duplicated"] as? Int == 0, "\(verify)")
    }
}
