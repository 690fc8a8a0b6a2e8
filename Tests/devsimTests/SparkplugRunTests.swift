import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 28: Sparkplug B edge nodes against a real mosquitto, judged by an independent host
/// (`scripts/sparkplug/host.py`, Google's protobuf with the schema written from the
/// specification): births before data, seq continuous per node, aliases that resolve, NDEATH's
/// bdSeq the NBIRTH's; a rebirth asked by NCMD; a DCMD write answered by DDATA; the NDEATH as the
/// will of a connection that ends without a word.
@Suite(.tags(.integration), .notUnitOnly) struct SparkplugRunTests {
    private static let scenario = """
        devices:
          - name: filler
            count: 6
            publish: 10/s
            sparkplug: { groupId: packaging, edgeNodeId: "line-{index}", nodes: 2 }
            payload:
              fields:
                speed: { randomWalk: { start: 100, step: 2, min: 50, max: 150 }, decimals: 1 }
                count: { counter: 0 }
                target: { constant: 20, command: set }
        """

    private func run(_ file: String, _ broker: MosquittoBroker) throws -> DevsimProcess {
        try DevsimProcess(arguments: ["run", file, "--host", "127.0.0.1", "--port", String(broker.port), "--stats-interval", "0"])
    }

    private func count(_ subscriber: Subscriber, _ topic: String) -> Int {
        subscriber.messages.filter { $0.topic == topic }.count
    }

    /// Publishes the Sparkplug payload `json` describes (protobuf's JSON mapping) on `topic`.
    private func command(_ broker: MosquittoBroker, _ topic: String, _ json: String) throws {
        let file = try RunFiles.scenario("command.bin", "")
        defer { RunFiles.removeFolder(of: file) }
        try Data(try SparkplugPython.encode(json)).write(to: URL(fileURLWithPath: file))
        let sent = try DevsimProcess.runToCompletion(
            executable: "mosquitto_pub", args: ["-h", "127.0.0.1", "-p", String(broker.port), "-t", topic, "-f", file], timeout: 5)
        #expect(sent.status == 0, "\(sent.stderr)")
    }

    @Test func aHostSeesAWholeLifecycleARebirthAndAWriteAnswered() throws {
        let broker = try MosquittoBroker()
        let subscriber = try Subscriber(port: broker.port, topic: "spBv1.0/#")
        let file = try RunFiles.scenario("line.yaml", Self.scenario)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try run(file, broker)
        #expect(
            TestClock.wait(timeout: 10, interval: 0.05) { count(subscriber, "spBv1.0/packaging/DDATA/line-2/filler-4") >= 5 },
            "\(devsim.stderr)")

        try command(
            broker, "spBv1.0/packaging/NCMD/line-1",
            #"{"metrics": [{"name": "Node Control/Rebirth", "datatype": 11, "boolean_value": true}]}"#)
        #expect(TestClock.wait(timeout: 5, interval: 0.05) { count(subscriber, "spBv1.0/packaging/NBIRTH/line-1") == 2 })
        // filler-4 is line-2's second device: its metrics' aliases are 4 (speed), 5 (count), 6 (target).
        try command(broker, "spBv1.0/packaging/DCMD/line-2/filler-4", #"{"metrics": [{"alias": 6, "datatype": 10, "double_value": 25}]}"#)
        let answered = TestClock.wait(timeout: 5, interval: 0.05) {
            subscriber.messages.contains { message in
                message.topic == "spBv1.0/packaging/DDATA/line-2/filler-4"
                    && (try? SparkplugPython.decode(message.payload))?.metrics.contains { $0.alias == "6" && $0.value == "25.0" } == true
            }
        }
        #expect(answered, "a DDATA with target 25")
        TestClock.sleep(0.3)
        #expect(devsim.terminate(grace: 10) == 0, "\(devsim.stderr)")
        #expect(TestClock.wait(timeout: 5, interval: 0.05) { subscriber.messages.filter { $0.topic.contains("/NDEATH/") }.count == 2 })
        subscriber.stop()

        let host = try SparkplugPython.checkAsHost(subscriber.messages.map { ($0.topic, $0.payload) })
        #expect(host.errors.count == 0, "\(host.errors.prefix(5))")
        #expect(host.counts["NBIRTH"] == 3 && host.counts["DBIRTH"] == 9 && host.counts["NDEATH"] == 2, "\(host.counts)")
        #expect(host.births["packaging/line-1/filler-5"] == 2 && host.births["packaging/line-2/filler-4"] == 1, "\(host.births)")
    }

    @Test func theWillIsTheNDEATHOfTheConnectionAndEachConnectionHasTheNextBdSeq() throws {
        let broker = try MosquittoBroker()
        let scenario =
            "broker: { reconnect: { initial: 100ms, max: 200ms } }\n" + Self.scenario.replacingOccurrences(of: "nodes: 2", with: "nodes: 1")
        let file = try RunFiles.scenario("line.yaml", scenario)
        defer { RunFiles.removeFolder(of: file) }
        let first = try Subscriber(port: broker.port, topic: "spBv1.0/#")
        let devsim = try run(file, broker)
        #expect(first.waitFor(count: 20, timeout: 10), "\(devsim.stderr)")
        first.stop()

        // The broker away for a while, then back: the attempts that found no broker sent no
        // CONNECT, so the connection that is made has the next bdSeq, 1.
        broker.stop(grace: 2)
        // With a backoff of 100 to 200 ms, several attempts in 1.5 s.
        TestClock.sleep(1.5)
        try broker.restart()
        let second = try Subscriber(port: broker.port, topic: "spBv1.0/#")
        // The node may be back before this subscriber: a rebirth, which keeps the bdSeq, shows it.
        try command(
            broker, "spBv1.0/packaging/NCMD/line-1",
            #"{"metrics": [{"name": "Node Control/Rebirth", "datatype": 11, "boolean_value": true}]}"#)
        #expect(
            TestClock.wait(timeout: 20, interval: 0.05) { second.messages.contains { $0.topic == "spBv1.0/packaging/NBIRTH/line-1" } },
            "\(devsim.stderr)")
        #expect(second.waitFor(count: 20, timeout: 5))
        devsim.sendSignal(SIGKILL)
        _ = devsim.waitUntilExit(timeout: 5)
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { second.messages.contains { $0.topic == "spBv1.0/packaging/NDEATH/line-1" } })
        second.stop()

        let bdSeq = { (messages: [Subscriber.Message], type: String) in
            try messages.filter { $0.topic == "spBv1.0/packaging/\(type)/line-1" }.map {
                try SparkplugPython.decode($0.payload).metrics.first { $0.name == "bdSeq" }?.value
            }
        }
        #expect(try bdSeq(first.messages, "NBIRTH") == ["0"])
        #expect(try Set(bdSeq(second.messages, "NBIRTH")) == ["1"])
        #expect(try bdSeq(second.messages, "NDEATH") == ["1"], "the broker's will is the connection's NDEATH")
        // The host accepts what the second subscriber saw from the first NBIRTH on.
        let born = second.messages.drop { $0.topic != "spBv1.0/packaging/NBIRTH/line-1" }
        let host = try SparkplugPython.checkAsHost(born.map { ($0.topic, $0.payload) })
        #expect(host.errors.count == 0, "\(host.errors.prefix(5))")
    }

    /// A live host on paho-mqtt, as a SCADA host meets a run from its start: it asks each node
    /// for a rebirth a second after its NBIRTH, and sees both nodes reborn with their devices.
    @Test func aLiveHostAsksEachNodeForARebirthAndSeesItAndItsDeath() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario("line.yaml", Self.scenario)
        defer { RunFiles.removeFolder(of: file) }
        var devsim: DevsimProcess?
        let host = try SparkplugPython.liveHost(port: broker.port, seconds: 8, rebirthAfter: 1) {
            let run = try DevsimProcess(arguments: [
                "run", file, "--host", "127.0.0.1", "--port", String(broker.port), "--stats-interval", "0", "--duration", "3s",
            ])
            devsim = run
            #expect(run.waitUntilExit(timeout: 15) == 0, "\(run.stderr)")
        }
        #expect(host.errors.count == 0, "\(host.errors.prefix(5)) \(devsim?.stderr ?? "")")
        for node in ["packaging/line-1", "packaging/line-2"] {
            #expect(host.rebirths[node] == SparkplugPython.Rebirth(asked: true, reborn: true, devicesReborn: 3), "\(host.rebirths)")
            #expect(host.bdSeq[node] == [0, 0], "a rebirth keeps its bdSeq")
            #expect(host.deaths[node] == [0], "the NDEATH of a clean end")
        }
    }

    /// A reload that changes a group retires its nodes (NDEATH) and opens them again: each node's
    /// new connection counts its bdSeq on from the old one's, as a host that saw the NDEATH
    /// expects, and births the devices the file now says.
    @Test func aReloadedNodeCountsItsBdSeqOn() throws {
        let broker = try MosquittoBroker()
        let subscriber = try Subscriber(port: broker.port, topic: "spBv1.0/#")
        let file = try RunFiles.scenario("line.yaml", Self.scenario)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try run(file, broker)
        let births = { subscriber.messages.filter { $0.topic.contains("/NBIRTH/") }.count }
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { births() == 2 }, "\(devsim.stderr)")
        try Self.scenario.replacingOccurrences(of: "count: 6", with: "count: 8").write(toFile: file, atomically: true, encoding: .utf8)
        devsim.sendSignal(SIGHUP)
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { births() == 4 }, "\(devsim.stderr)")
        TestClock.sleep(0.3)
        #expect(devsim.terminate(grace: 10) == 0, "\(devsim.stderr)")
        // mosquitto may read the new connection's CONNECT before the old one's DISCONNECT, take
        // its session over and publish its will: the same NDEATH, its bdSeq the old one's.
        #expect(TestClock.wait(timeout: 5, interval: 0.05) { subscriber.messages.filter { $0.topic.contains("/NDEATH/") }.count >= 4 })
        subscriber.stop()

        let host = try SparkplugPython.checkAsHost(subscriber.messages.map { ($0.topic, $0.payload) })
        #expect(host.errors.count == 0, "\(host.errors.prefix(5))")
        for node in ["packaging/line-1", "packaging/line-2"] {
            #expect(host.bdSeq[node] == [0, 1], "\(host.bdSeq)")
            #expect(host.deaths[node].map { Array(Set($0)).compactMap { $0 }.sorted() } == [0, 1], "\(host.deaths)")
        }
        #expect(host.births["packaging/line-2/filler-8"] == 1, "the new device")
    }
}
