import Foundation
import Testing
import TestSupport

@testable import Signals

/// devsim's Sparkplug pieces put together as an edge node's connection will (will, NBIRTH, a
/// DBIRTH per device, data, a rebirth, NDEATH), read by an independent host
/// (`scripts/sparkplug/host.py` over Python's protobuf): births before data, seq continuous per
/// node, aliases that resolve, the NDEATH's bdSeq the NBIRTH's. The host is shown to catch each
/// fault too, so that its silence means something. The same host live on mosquitto (`host.py
/// live`), as CI will hold a running devsim against it.
@Suite(.tags(.integration), .notUnitOnly) struct SparkplugHostCheckTests {
    typealias Message = (topic: String, payload: [UInt8])

    let topic = SparkplugTopic(groupID: "packaging", edgeNodeID: "line-1")

    func device(_ id: String, reporting: SparkplugReporting = .everyMetric) -> DeviceSignals {
        let signals = DeviceSignals(
            payload: PayloadSpec(
                style: .flat,
                fields: [
                    FieldSpec(name: "count", generator: CounterRecipe()),
                    FieldSpec(name: "speed", generator: SineRecipe(min: 80, max: 120, period: 60), decimals: 1),
                ]), deviceID: id, index: 1, seed: 1, sampleInterval: nil)
        signals.useSparkplug(firstAlias: 1, reporting: reporting)
        return signals
    }

    /// What one connection of an edge node with `devices` says, `ticks` data rounds, with an
    /// NCMD rebirth after `rebirthAfter` rounds; its will first (what the broker would publish).
    func session(devices ids: [String], ticks: Int, rebirthAfter: Int? = nil) -> (will: [UInt8], messages: [Message]) {
        var node = SparkplugEdgeNode(topic: topic)
        let devices = ids.map { device($0) }
        var buffer = PayloadBuffer()
        node.willForNextConnection(into: &buffer)
        let will = buffer.bytes
        var messages: [Message] = []
        func births(at time: Double) {
            buffer.removeAll()
            node.writeBirth(timestamp: UInt64(time * 1000), into: &buffer)
            messages.append((topic.topic(.nodeBirth), buffer.bytes))
            for (id, signals) in zip(ids, devices) {
                buffer.removeAll()
                signals.encodeSparkplugBirth(elapsed: time, wallClock: 1_700_000_000 + time, into: &buffer)
                node.appendSeq(into: &buffer)
                messages.append((topic.topic(.deviceBirth, device: id), buffer.bytes))
            }
        }
        births(at: 0)
        for tick in 1...ticks {
            for (id, signals) in zip(ids, devices) {
                buffer.removeAll()
                let time = Double(tick)
                if signals.encodeSparkplugData(elapsed: time, wallClock: 1_700_000_000 + time, into: &buffer) > 0 {
                    node.appendSeq(into: &buffer)
                    messages.append((topic.topic(.deviceData, device: id), buffer.bytes))
                }
            }
            if tick == rebirthAfter { births(at: Double(tick)) }
        }
        buffer.removeAll()
        node.writeDeath(into: &buffer)
        messages.append((topic.topic(.nodeDeath), buffer.bytes))
        return (will, messages)
    }

    @Test func aHostFindsNothingWrongWithANodesSession() throws {
        // 2 devices × 150 rounds: seq wraps past 255; a rebirth in the middle restarts it.
        let (_, messages) = session(devices: ["filler-1", "capper-1"], ticks: 150, rebirthAfter: 100)
        let report = try SparkplugPython.checkAsHost(messages)
        #expect(report.errors == [])
        #expect(report.counts["NBIRTH"] == 2)
        #expect(report.counts["DBIRTH"] == 4)
        #expect(report.counts["DDATA"] == 300)
        #expect(report.counts["NDEATH"] == 1)
        #expect(report.births["packaging/line-1/filler-1"] == 2)
    }

    @Test func theWillTheBrokerPublishesMatchesTheBirth() throws {
        let (will, messages) = session(devices: ["filler-1"], ticks: 3)
        // The connection is lost instead: the broker publishes the will, not the node's NDEATH.
        let report = try SparkplugPython.checkAsHost(Array(messages.dropLast()) + [(topic.topic(.nodeDeath), will)])
        #expect(report.errors == [])
    }

    @Test func theHostCatchesAGapDataBeforeBirthAnUnknownAliasAndAStrangersDeath() throws {
        let (_, messages) = session(devices: ["filler-1"], ticks: 4)
        // NBIRTH (seq 0), DBIRTH (1), 4 DDATA (2–5), NDEATH: without the DDATA of seq 3.
        var gap = messages
        gap.remove(at: 3)
        #expect(try SparkplugPython.checkAsHost(gap).errors.contains { $0.contains("seq 4 where 3 was due") })

        var noDeviceBirth = messages
        noDeviceBirth.remove(at: 1)
        #expect(try SparkplugPython.checkAsHost(noDeviceBirth).errors.contains { $0.contains("DBIRTH") })

        var buffer = PayloadBuffer()
        SparkplugWriter.writeMetric(
            name: nil, alias: 99, timestamp: 1, dataType: .double, writesDataType: false, value: .double(1), into: &buffer)
        SparkplugWriter.writeSeq(6, into: &buffer)
        let unknownAlias = Array(messages.dropLast()) + [(topic.topic(.deviceData, device: "filler-1"), buffer.bytes)]
        #expect(try SparkplugPython.checkAsHost(unknownAlias).errors.contains { $0.contains("alias 99 is in no birth") })

        // The will of the connection after it: bdSeq 1 against the NBIRTH's 0.
        var node = SparkplugEdgeNode(topic: topic)
        buffer.removeAll()
        node.willForNextConnection(into: &buffer)
        buffer.removeAll()
        node.willForNextConnection(into: &buffer)
        let strangersDeath = Array(messages.dropLast()) + [(topic.topic(.nodeDeath), buffer.bytes)]
        #expect(try SparkplugPython.checkAsHost(strangersDeath).errors.contains { $0.contains("NDEATH bdSeq 1 is not the NBIRTH's 0") })
    }

    /// A connection with no births (a node waiting for its primary host) ends with an NDEATH of
    /// its own bdSeq: the node is dead already, and no NBIRTH is there to hold it against.
    @Test func anNDEATHOfANodeDeadAlreadyIsNotHeldAgainstTheLastBirth() throws {
        let (_, messages) = session(devices: ["filler-1"], ticks: 2)
        var node = SparkplugEdgeNode(topic: topic)
        var buffer = PayloadBuffer()
        node.willForNextConnection(into: &buffer)
        buffer.removeAll()
        node.willForNextConnection(into: &buffer)
        let report = try SparkplugPython.checkAsHost(messages + [(topic.topic(.nodeDeath), buffer.bytes)])
        #expect(report.errors == [] && report.deaths["packaging/line-1"] == [0, 1], "\(report.errors) \(report.deaths)")
    }

    @Test func theHostCatchesARebirthThatMovesBdSeqAndANextConnectionThatDoesNot() throws {
        let (_, messages) = session(devices: ["filler-1"], ticks: 2)
        // The same node's next connection, after its NDEATH: bdSeq 0 again, where 1 was due.
        let again = try SparkplugPython.checkAsHost(messages + messages)
        #expect(again.errors.contains { $0.contains("NBIRTH bdSeq 0 after an NDEATH, where 1 was due") })
        #expect(again.bdSeq["packaging/line-1"] == [0, 0])

        // A rebirth on the same connection (no NDEATH between) with the next connection's bdSeq.
        var node = SparkplugEdgeNode(topic: topic)
        var buffer = PayloadBuffer()
        node.willForNextConnection(into: &buffer)
        node.willForNextConnection(into: &buffer)
        buffer.removeAll()
        node.writeBirth(timestamp: 1, into: &buffer)
        let moved = try SparkplugPython.checkAsHost(Array(messages.dropLast()) + [(topic.topic(.nodeBirth), buffer.bytes)])
        #expect(moved.errors.contains { $0.contains("rebirth NBIRTH bdSeq 1, not the 0 of the NBIRTH before it") })
    }

    /// Publishes `messages` through the broker in order, one `mosquitto_pub` each: each has
    /// disconnected before the next connects, so the broker passes them on in this order.
    func publish(_ messages: [Message], port: UInt16) throws {
        let folder = try RunFiles.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (index, message) in messages.enumerated() {
            let file = folder.appendingPathComponent("\(index)")
            try Data(message.payload).write(to: file)
            let result = try MosquittoPub.run(port: port, ["-t", message.topic, "-f", file.path], timeout: 10)
            #expect(result.status == 0, "mosquitto_pub: \(result.stderr)")
        }
    }

    @Test func aLiveHostOnMosquittoChecksANodeAsksItForARebirthAndKeepsItsState() throws {
        let broker = try MosquittoBroker()
        let (_, messages) = session(devices: ["filler-1"], ticks: 3)
        let capture = try RunFiles.scenario("capture.txt", "")
        defer { RunFiles.removeFolder(of: capture) }
        let report = try SparkplugPython.liveHost(
            port: broker.port, seconds: 2, rebirthAfter: 0.5, capture: capture, primaryHost: "scada-1"
        ) { try publish(messages, port: broker.port) }
        // Nothing here answers the NCMD: the host asked through the broker (its NCMD came back to
        // it), and says no rebirth came.
        #expect(report.errors == ["packaging/line-1: asked to rebirth, and no NBIRTH with seq 0 came"])
        #expect(report.rebirths["packaging/line-1"] == SparkplugPython.Rebirth(asked: true, reborn: false, devicesReborn: 0))
        #expect(report.counts == ["NBIRTH": 1, "DBIRTH": 1, "DDATA": 3, "NDEATH": 1, "NCMD": 1])
        #expect(report.bdSeq["packaging/line-1"] == [0])
        #expect(report.deaths["packaging/line-1"] == [0])
        // Every message in check's format: the host's own STATE online and its NCMD among them.
        let topics = try String(contentsOfFile: capture, encoding: .utf8).split(separator: "\n").map { $0.split(separator: " ")[0] }
        #expect(topics.count == messages.count + 2)
        #expect(topics.contains("spBv1.0/STATE/scada-1") && topics.contains("spBv1.0/packaging/NCMD/line-1"))
        // Gone, the primary host left its STATE offline, retained for the nodes that come next.
        let state = try DevsimProcess.runToCompletion(
            executable: "mosquitto_sub",
            args: ["-h", "127.0.0.1", "-p", String(broker.port), "-t", "spBv1.0/STATE/#", "-C", "1", "-W", "5"],
            timeout: 10)
        #expect(state.stdout.contains(#""online":false"#))
    }
}
