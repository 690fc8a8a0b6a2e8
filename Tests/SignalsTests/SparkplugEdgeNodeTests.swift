import Testing
import TestSupport

@testable import Signals

/// An edge node's sequence numbers and its births and deaths, read by the independent decoder.
@Suite(.tags(.integration), .notUnitOnly) struct SparkplugEdgeNodeTests {
    let topic = SparkplugTopic(groupID: "packaging", edgeNodeID: "line-1")

    @Test func topicsFollowTheNamespace() {
        #expect(topic.topic(.nodeBirth) == "spBv1.0/packaging/NBIRTH/line-1")
        #expect(topic.topic(.deviceData, device: "filler-3") == "spBv1.0/packaging/DDATA/line-1/filler-3")
        #expect(topic.commandFilters == ["spBv1.0/packaging/NCMD/line-1", "spBv1.0/packaging/DCMD/line-1/+"])
        #expect(topic.command(in: "spBv1.0/packaging/NCMD/line-1")! == (.nodeCommand, nil))
        #expect(topic.command(in: "spBv1.0/packaging/DCMD/line-1/filler-3")! == (.deviceCommand, "filler-3"))
        #expect(topic.command(in: "spBv1.0/packaging/DCMD/line-1/") == nil)
        #expect(topic.command(in: "spBv1.0/packaging/DCMD/line-1/a/b") == nil)
        #expect(topic.command(in: "spBv1.0/packaging/NCMD/line-10") == nil)
    }

    @Test func theWillAndTheBirthOfAConnectionCarryOneBdSeqAndTheNextConnectionTheNext() throws {
        var node = SparkplugEdgeNode(topic: topic)
        var will = PayloadBuffer()
        node.willForNextConnection(into: &will)
        var birth = PayloadBuffer()
        node.writeBirth(timestamp: 1_700_000_000_000, into: &birth)
        let death = try SparkplugPython.decode(will.bytes)
        let born = try SparkplugPython.decode(birth.bytes)
        #expect(death.seq == nil, "an NDEATH has no seq")
        #expect(death.metrics.map(\.name) == ["bdSeq"])
        #expect(death.metrics.map(\.datatype) == ["4"])
        #expect(death.metrics.map(\.value) == ["0"])
        #expect(born.seq == "0")
        #expect(born.timestamp == "1700000000000")
        #expect(born.metrics.map(\.name) == ["bdSeq", "Node Control/Rebirth"])
        #expect(born.metrics.map(\.datatype) == ["4", "11"])
        #expect(born.metrics.map(\.value) == ["0", "false"])
        #expect(born.metrics.allSatisfy { $0.timestamp == "1700000000000" })

        will.removeAll()
        node.willForNextConnection(into: &will)
        #expect(try SparkplugPython.decode(will.bytes).metrics.map(\.value) == ["1"])
        birth.removeAll()
        node.writeBirth(timestamp: 1, into: &birth)
        #expect(try SparkplugPython.decode(birth.bytes).metrics.first?.value == "1")
    }

    @Test func bdSeqWrapsAfter255() throws {
        var node = SparkplugEdgeNode(topic: topic)
        var buffer = PayloadBuffer()
        for _ in 0...256 {
            buffer.removeAll()
            node.willForNextConnection(into: &buffer)
        }
        // The 257th connection: 256 wraps to 0.
        #expect(node.bdSeq == 0)
        #expect(try SparkplugDecoder.decode(buffer.bytes).metrics.first?.value == .int(0))
    }

    @Test func seqCountsFromTheBirthAndWrapsAfter255() throws {
        var node = SparkplugEdgeNode(topic: topic)
        var buffer = PayloadBuffer()
        node.writeBirth(timestamp: 0, into: &buffer)
        var seqs: [UInt64?] = []
        for _ in 1...257 {
            buffer.removeAll()
            node.appendSeq(into: &buffer)
            seqs.append(try SparkplugDecoder.decode(buffer.bytes).seq)
        }
        #expect(Array(seqs.prefix(3)) == [1, 2, 3])
        #expect(Array(seqs[253...256]) == [254, 255, 0, 1])
        // A rebirth starts again from 0.
        buffer.removeAll()
        node.writeBirth(timestamp: 0, into: &buffer)
        #expect(try SparkplugDecoder.decode(buffer.bytes).seq == 0)
    }

    @Test func onlyATrueRebirthMetricAsksForARebirth() throws {
        let asks = try SparkplugPython.encode(#"{"metrics": [{"name": "Node Control/Rebirth", "datatype": 11, "boolean_value": true}]}"#)
        let declines = try SparkplugPython.encode(
            #"{"metrics": [{"name": "Node Control/Rebirth", "datatype": 11, "boolean_value": false}]}"#)
        let other = try SparkplugPython.encode(#"{"metrics": [{"name": "Node Control/Reboot", "datatype": 11, "boolean_value": true}]}"#)
        #expect(SparkplugEdgeNode.asksForRebirth(try SparkplugDecoder.decode(asks)))
        #expect(!SparkplugEdgeNode.asksForRebirth(try SparkplugDecoder.decode(declines)))
        #expect(!SparkplugEdgeNode.asksForRebirth(try SparkplugDecoder.decode(other)))
    }
}
