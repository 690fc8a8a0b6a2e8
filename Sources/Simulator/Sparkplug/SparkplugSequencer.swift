import MQTT
import Mosquitto
import Signals

/// An edge node's numbers as its messages go out (`SparkplugEdgeNode`): each message takes its
/// seq at the moment libmosquitto takes it, so that the seq runs on in the order the broker
/// receives the node's messages, whichever path made them (the ticks and their queue, the
/// births, a command's answer). Shared by the connection and its telemetry; confined to their
/// loop.
final class SparkplugSequencer: MessageStamp {
    private(set) var node: SparkplugEdgeNode
    /// A message and its seq, handed to libmosquitto, which copies it.
    private var scratch = PayloadBuffer()

    init(topic: SparkplugTopic) {
        node = SparkplugEdgeNode(topic: topic)
    }

    var topic: SparkplugTopic { node.topic }

    /// Goes on from `previous`, the connection of the same node (its client id) that a reload
    /// replaced by this one: its bdSeq counts on.
    func carryOn(from previous: SparkplugSequencer) {
        guard previous.topic == topic else { return }
        node.carryOn(from: previous.node)
    }

    /// With `run --verify`: whether the subscriber that watches the node is subscribed now, and
    /// the verifier, which counts what the run's `published` leaves out. Set before the loops run.
    var verifierPresence: VerifierPresence?
    var verifier: Verifier?
    /// Messages that took a seq and went to libmosquitto, NBIRTHs included: what `run --verify`
    /// weighs the node's stream against; of those, the ones published while its subscriber was
    /// not subscribed, which could not reach it.
    private(set) var published = 0
    private(set) var publishedWhileVerifierAway = 0

    /// `payload` with the node's next seq appended, handed to `publish`; the seq is taken when
    /// libmosquitto took the message. `beside`: a message the run's `published` leaves out (a
    /// DBIRTH, a DCMD's answer), not a tick.
    func publish(
        _ payload: UnsafeRawBufferPointer, beside: Bool,
        _ publish: (UnsafeRawBufferPointer) -> (messageID: Int32, error: MosquittoError?)
    ) -> (messageID: Int32, error: MosquittoError?) {
        scratch.removeAll()
        scratch.append(contentsOf: payload)
        node.writeSeq(into: &scratch)
        let result = scratch.withBytes(publish)
        if result.error == nil {
            node.advanceSeq()
            notePublished(beside: beside)
        }
        return result
    }

    /// libmosquitto took a message with the node's seq: made here (`publish`), or the NBIRTH
    /// (`birth`), `beside` the ticks the run counts as published.
    func notePublished(beside: Bool) {
        published += 1
        if let verifierPresence, !verifierPresence.isListening { publishedWhileVerifierAway += 1 }
        if beside { verifier?.publishedBeside.add(1, ordering: .relaxed) }
    }

    /// The will of the last attempt, and whether that attempt's CONNECT reached the broker
    /// (`connectReachedBroker`).
    private var lastWill: Will?
    private var lastConnectReachedBroker = false

    /// Before each attempt: the NDEATH that is the connection's will, with the next bdSeq when
    /// the last attempt's CONNECT reached the broker (3.0: one more than the previous CONNECT's),
    /// the same bdSeq when it never got that far (a broker down, refusing TCP).
    func willForNextConnection() -> Will {
        if let lastWill, !lastConnectReachedBroker { return lastWill }
        lastConnectReachedBroker = false
        scratch.removeAll()
        node.willForNextConnection(into: &scratch)
        let will = Will(topic: topic.topic(.nodeDeath), payload: scratch.bytes, qos: .atLeastOnce, retain: false)
        lastWill = will
        return will
    }

    /// The attempt's CONNECT reached the broker: accepted, refused or left unanswered.
    func connectReachedBroker() {
        lastConnectReachedBroker = true
    }

    /// The NDEATH of the connection under way, said before a clean DISCONNECT.
    func death() -> [UInt8] {
        scratch.removeAll()
        node.writeDeath(into: &scratch)
        return scratch.bytes
    }

    /// The NBIRTH, seq 0: the births that follow it count on from 1.
    func birth(timestamp: UInt64) -> [UInt8] {
        scratch.removeAll()
        node.writeBirth(timestamp: timestamp, into: &scratch)
        return scratch.bytes
    }
}
