/// An edge node's part of the Sparkplug lifecycle (5.x): the birth/death sequence number that
/// ties its NBIRTH to the NDEATH its broker holds as its will, and the sequence number of every
/// message it publishes. A value: its connection owns it and asks it for each payload's numbers.
package struct SparkplugEdgeNode: Sendable {
    /// The metric that asks a node to publish its births anew (NCMD) and that its NBIRTH
    /// announces, false.
    package static let rebirthMetric = "Node Control/Rebirth"
    package static let bdSeqMetric = "bdSeq"

    package let topic: SparkplugTopic
    /// The bdSeq of the connection under way (or about to be made): 0–255, one more per CONNECT.
    package private(set) var bdSeq: UInt64 = 0
    private var connections = 0
    /// The seq the next message gets.
    private var seq: UInt64 = 0

    package init(topic: SparkplugTopic) {
        self.topic = topic
    }

    /// Goes on from `previous`, the same node's connection that a reload replaced: the next
    /// CONNECT's bdSeq is one more than its last, as a host that saw its NDEATH expects.
    package mutating func carryOn(from previous: SparkplugEdgeNode) {
        bdSeq = previous.bdSeq
        connections = previous.connections
    }

    /// Before each CONNECT: the next bdSeq (0 for the first), and the NDEATH that is the
    /// connection's will, which carries it and no seq.
    package mutating func willForNextConnection(into buffer: inout PayloadBuffer) {
        if connections > 0 { bdSeq = (bdSeq + 1) & 0xFF }
        connections += 1
        writeDeath(into: &buffer)
    }

    /// The NDEATH of the connection under way: before a clean DISCONNECT, which suppresses the
    /// will, the node says it itself.
    package func writeDeath(into buffer: inout PayloadBuffer) {
        SparkplugWriter.writeMetric(
            name: Self.bdSeqMetric, alias: nil, timestamp: nil, dataType: .int64, value: .uint(bdSeq), into: &buffer)
    }

    /// After CONNACK, and after an NCMD rebirth: the NBIRTH, seq 0, with the connection's bdSeq
    /// and `Node Control/Rebirth` false. Every message after it counts on from 1.
    package mutating func writeBirth(timestamp: UInt64, into buffer: inout PayloadBuffer) {
        SparkplugWriter.writeTimestamp(timestamp, into: &buffer)
        SparkplugWriter.writeMetric(
            name: Self.bdSeqMetric, alias: nil, timestamp: timestamp, dataType: .int64, value: .uint(bdSeq), into: &buffer)
        SparkplugWriter.writeMetric(
            name: Self.rebirthMetric, alias: nil, timestamp: timestamp, dataType: .boolean, value: .bool(false), into: &buffer)
        seq = 0
        appendSeq(into: &buffer)
    }

    /// Appends the next seq to a message made by its device (DBIRTH, DDATA, DDEATH) or by the
    /// node: 0–255, wrapping, across every message of the node but its NDEATH.
    package mutating func appendSeq(into buffer: inout PayloadBuffer) {
        writeSeq(into: &buffer)
        advanceSeq()
    }

    /// Appends the seq the next message gets, which it takes only once it went out
    /// (`advanceSeq`): a message libmosquitto refused leaves no gap.
    package func writeSeq(into buffer: inout PayloadBuffer) {
        SparkplugWriter.writeSeq(seq, into: &buffer)
    }

    package mutating func advanceSeq() {
        seq = (seq + 1) & 0xFF
    }

    /// Whether an NCMD asks for a rebirth: `Node Control/Rebirth` true.
    package static func asksForRebirth(_ command: SparkplugPayload) -> Bool {
        command.metrics.contains { $0.name == rebirthMetric && $0.value == .bool(true) }
    }
}
