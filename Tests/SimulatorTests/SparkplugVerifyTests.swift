import Glibc
import MQTT
import Scenario
import Signals
import Testing

@testable import Report
@testable import Simulator

/// Issue 28, item 6: `run --verify` judges a Sparkplug edge node's messages by the node's seq
/// (0–255, wrapping, 0 again at each NBIRTH), where no counter field can be read: the per-node
/// tracker, the streams that feed it, and the verifier's plan of a Sparkplug fleet.
@Suite struct SparkplugVerifyTests {
    // MARK: The tracker

    /// A message's fingerprint, made of its number: distinct messages, distinct fingerprints.
    @discardableResult
    private func record(_ tracker: inout SparkplugSeqTracker, _ seq: UInt8, birth: Bool = false, bytes: UInt64? = nil)
        -> SparkplugSeqTracker.Outcome
    {
        tracker.record(seq: seq, isBirth: birth, fingerprint: bytes ?? UInt64(seq) &* 0x9E37_79B9_7F4A_7C15 ^ 0xABCD)
    }

    @Test func theSeqWrapsAfter255WithoutAGap() {
        var tracker = SparkplugSeqTracker()
        #expect(record(&tracker, 0, birth: true) == .new)
        for n in 1..<700 {
            #expect(record(&tracker, UInt8(n % 256), bytes: UInt64(n)) == .new, "message \(n)")
        }
        #expect(tracker.received == 700)
        #expect(tracker.missing == 0 && tracker.duplicated == 0 && tracker.births == 1)
    }

    @Test func aGapIsTheModularDistanceLessOne() {
        var tracker = SparkplugSeqTracker()
        record(&tracker, 0, birth: true)
        record(&tracker, 1)
        #expect(record(&tracker, 5) == .newPastAGap, "2, 3 and 4 never came")
        #expect(tracker.missing == 3)
        // Across the wrap: 250 → 3 leaves 251–255, 0, 1, 2 out.
        var wrapping = SparkplugSeqTracker()
        record(&wrapping, 250)
        #expect(record(&wrapping, 3) == .newPastAGap)
        #expect(wrapping.missing == 8)
        #expect(wrapping.received == 2)
    }

    /// The one seq eight bits cannot place: the last one's again. A copy repeats the bytes; a
    /// message 256 on does not, and is new, 255 missing before it (at least: the seq cannot
    /// tell 255 from 511).
    @Test func theLastSeqAgainIsACopyOnlyWithTheSameBytes() {
        var tracker = SparkplugSeqTracker()
        record(&tracker, 0, birth: true)
        record(&tracker, 1, bytes: 100)
        #expect(record(&tracker, 1, bytes: 100) == .duplicate)
        #expect(record(&tracker, 1, bytes: 100) == .duplicate, "a third copy")
        #expect(tracker.received == 2 && tracker.duplicated == 2 && tracker.missing == 0)
        #expect(record(&tracker, 1, bytes: 356) == .newPastAGap, "256 on, other bytes")
        #expect(tracker.received == 3 && tracker.missing == 255)
        #expect(record(&tracker, 2, bytes: 357) == .new)
    }

    /// An NBIRTH starts the count again, from wherever the seq was: no gap, though messages may
    /// have gone missing before it (which `lost` counts, from what the node published). A copy
    /// of the NBIRTH is a copy, not a rebirth.
    @Test func anNBIRTHRestartsTheCountAndItsCopyIsACopy() {
        var tracker = SparkplugSeqTracker()
        record(&tracker, 0, birth: true)
        for n: UInt8 in 1...17 { record(&tracker, n) }
        #expect(record(&tracker, 0, birth: true, bytes: 9000) == .new, "a rebirth after 17")
        #expect(record(&tracker, 0, birth: true, bytes: 9000) == .duplicate)
        #expect(record(&tracker, 1) == .new, "the DBIRTH after it")
        #expect(tracker.births == 2 && tracker.missing == 0 && tracker.duplicated == 1 && tracker.received == 20)
        // A rebirth right after a message with seq 0 (a DDATA at the wrap): new too.
        var atZero = SparkplugSeqTracker()
        record(&atZero, 0, bytes: 1)
        #expect(record(&atZero, 0, birth: true, bytes: 2) == .new)
        #expect(atZero.received == 2 && atZero.missing == 0)
    }

    /// A verifier that comes in mid-stream (or a node whose NBIRTH went missing) takes the first
    /// message it sees as the start; the NBIRTH missing after it is a gap like any other.
    @Test func theFirstMessageNeedNotBeABirth() {
        var tracker = SparkplugSeqTracker()
        #expect(record(&tracker, 77) == .new)
        #expect(record(&tracker, 78) == .new)
        #expect(tracker.missing == 0 && tracker.births == 0)
        // A lost NBIRTH: the DBIRTH after it (seq 1) reads as past a gap from 78.
        #expect(record(&tracker, 1) == .newPastAGap)
        #expect(tracker.missing == 178)
    }

    @Test func theFingerprintTellsBytesAndTopicsApart() {
        func print(_ topic: String, _ bytes: [UInt8]) -> UInt64 {
            Array(topic.utf8).withUnsafeBytes { topic in bytes.withUnsafeBytes { SparkplugSeqTracker.fingerprint($0, topic: topic) } }
        }
        let payload: [UInt8] = Array(0..<37)
        #expect(print("a/b", payload) == print("a/b", payload))
        #expect(print("a/b", payload) != print("a/c", payload))
        var changed = payload
        changed[33] ^= 1
        #expect(print("a/b", payload) != print("a/b", changed), "a byte in the tail")
        changed = payload
        changed[3] ^= 0x80
        #expect(print("a/b", payload) != print("a/b", changed), "a high bit in the first word")
        #expect(print("a/b", []) != print("a/b", [0]))
    }

    // MARK: The streams

    static let yaml = """
        devices:
          - name: filler
            count: 3
            publish: 1/s
            sparkplug: { groupId: plant, edgeNodeId: "line-{index}", nodes: 2 }
            payload:
              fields:
                speed: { constant: 5 }
        """

    /// A node's stream as the verifier makes it, and a way to hand it messages.
    private struct Node {
        var streams = VerifiedStreams(capacity: 16)
        var latency = Histogram()
        let index: Int

        init() throws {
            let connection = try #require(try plan(yaml: SparkplugVerifyTests.yaml).connections.first)
            let topic = try #require(connection.sparkplug?.topic)
            index = streams.node(
                topic.nodeFilter, birth: topic.topic(.nodeBirth), topics: topic.sequencedTopics(devices: connection.devices.map(\.id)),
                plan: connection.devices[0].verify)
        }

        var stream: Verifier.Stream { streams.streams[index] }

        mutating func receive(_ topic: String, _ payload: SparkplugPayload, retain: Bool = false) -> VerifiedStreams.Receipt {
            Array(topic.utf8).withUnsafeBytes { topic in
                payload.encoded.withUnsafeBytes { bytes in
                    streams.receive(ReceivedMessage(topicBytes: topic, payload: bytes, qos: .atMostOnce, retain: retain), latency: &latency)
                }
            }
        }
    }

    private static let prefix = "spBv1.0/plant"

    private func data(_ seq: UInt64, value: Double = 5, at milliseconds: UInt64 = 1_700_000_000_000) -> SparkplugPayload {
        SparkplugPayload(timestamp: milliseconds, metrics: [SparkplugMetric(alias: 1, dataType: nil, value: .double(value))], seq: seq)
    }

    @Test func aNodesMessagesOnEveryTopicOfItsOwnAreOneStream() throws {
        var node = try Node()
        let p = Self.prefix
        #expect(node.receive("\(p)/NBIRTH/line-1", data(0)) == .new)
        #expect(node.receive("\(p)/DBIRTH/line-1/filler-1", data(1)) == .new)
        #expect(node.receive("\(p)/DBIRTH/line-1/filler-3", data(2)) == .new)
        #expect(node.receive("\(p)/DDATA/line-1/filler-3", data(3)) == .new)
        #expect(node.receive("\(p)/DDATA/line-1/filler-1", data(4)) == .new)
        #expect(node.receive("\(p)/DDATA/line-1/filler-1", data(4)) == .copy)
        #expect(node.receive("\(p)/DDATA/line-1/filler-1", data(7)) == .newPastAGap)
        #expect(node.receive("\(p)/NDATA/line-1", data(8)) == .new)
        #expect(node.receive("\(p)/DDEATH/line-1/filler-3", data(9)) == .new)
        // Not the node's seq: its NDEATH, the commands a host sends it, another node's
        // messages, a device it does not have, a retained message.
        #expect(node.receive("\(p)/NDEATH/line-1", SparkplugPayload()) == .notOurs)
        #expect(node.receive("\(p)/NCMD/line-1", SparkplugPayload()) == .notOurs)
        #expect(node.receive("\(p)/DCMD/line-1/filler-1", SparkplugPayload()) == .notOurs)
        #expect(node.receive("\(p)/DDATA/line-2/filler-2", data(10)) == .notOurs)
        #expect(node.receive("\(p)/DDATA/line-1/filler-2", data(10)) == .notOurs)
        #expect(node.receive("\(p)/DDATA/line-1/filler-1", data(10), retain: true) == .notOurs)
        // A rebirth: no gap, whatever the seq was.
        #expect(node.receive("\(p)/NBIRTH/line-1", data(0, at: 1_700_000_000_500)) == .new)
        #expect(node.receive("\(p)/DBIRTH/line-1/filler-1", data(1)) == .new)
        let stream = node.stream
        #expect(stream.topic == "spBv1.0/plant/+/line-1/#")
        #expect(stream.received == 10 && stream.duplicated == 1 && stream.gaps == 2 && stream.outOfOrder == 0)
        #expect(stream.deliveries == 11)
        #expect(stream.node?.births == 2)
        #expect(node.latency.count == 11, "every delivery with a timestamp, as for JSON")
    }

    /// Latency is reception less the payload's timestamp, in milliseconds as Sparkplug writes it.
    @Test func latencyIsReadFromThePayloadsTimestamp() throws {
        var node = try Node()
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let sent = UInt64(now.tv_sec) * 1000 + UInt64(now.tv_nsec) / 1_000_000 - 250
        _ = node.receive("\(Self.prefix)/DDATA/line-1/filler-1", data(1, at: sent))
        let latency = try #require(node.latency.isEmpty ? nil : Percentiles(node.latency))
        #expect(latency.max >= 250 && latency.max < 1250, "\(latency)")
    }

    /// A message whose seq cannot be read (not protobuf, or no seq) counts, as a JSON message
    /// without its counter does: received and unnumbered, no copy judged.
    @Test func aMessageWithoutASeqIsCountedUnnumbered() throws {
        var node = try Node()
        let topic = "\(Self.prefix)/DDATA/line-1/filler-1"
        #expect(node.receive(topic, SparkplugPayload(timestamp: 5)) == .new)
        let garbage: [UInt8] = [0x0A, 0x7F, 0x01]
        let receipt = Array(topic.utf8).withUnsafeBytes { topic in
            garbage.withUnsafeBytes {
                node.streams.receive(
                    ReceivedMessage(topicBytes: topic, payload: $0, qos: .atMostOnce, retain: false), latency: &node.latency)
            }
        }
        #expect(receipt == .new)
        #expect(node.stream.unnumbered == 2 && node.stream.received == 2)
    }

    // MARK: The verifier's plan

    /// One stream a node, subscribed to by the node's filter; its figures weighed against what
    /// the node published (births included), not its devices' ticks.
    @Test func theVerifierWatchesEachNodeByItsFilter() throws {
        let plan = try plan(yaml: Self.yaml)
        let logs = LogLines()
        let logger = Logger(minimumLevel: .warning) { logs.append($0) }
        let verifier = try Verifier(plan: plan, logger: logger)
        #expect(verifier.subscriptionFilters == [["spBv1.0/plant/+/line-1/#": .atMostOnce, "spBv1.0/plant/+/line-2/#": .atMostOnce]])
        #expect(verifier.topics.map(\.topic) == ["spBv1.0/plant/+/line-1/#", "spBv1.0/plant/+/line-2/#"])
        #expect(verifier.topics.allSatisfy { $0.node != nil && $0.devices == 1 })
        #expect(logs.all.isEmpty, "no 'counted, not checked' warning: \(logs.all)")
        // Two loops: a subscriber connection a node.
        let two = try Verifier(plan: plan, loops: 2, logger: logger)
        #expect(two.subscriptionFilters == [["spBv1.0/plant/+/line-1/#": .atMostOnce], ["spBv1.0/plant/+/line-2/#": .atMostOnce]])

        // Nothing arrived: what each node published is lost, the part published while the
        // verifier was away apart; its devices' own counts are not the node's.
        let summary = verifier.summary(
            published: plan.connections.map { .init(connection: $0, topic: $0.sparkplug!.topic.nodeFilter, count: 10, whileAway: 3) }
                + plan.connections[0].devices.map { .init(connection: plan.connections[0], topic: $0.topic, count: 100) })
        #expect(summary.lost == 14 && summary.missedWhileAway == 6 && summary.received == 0)
        #expect(summary.silentTopics == 2)
    }

    /// The fleet's figures with `published` messages, every one accepted (QoS 0).
    private static func totals(published: Int) -> Totals {
        var totals = Totals()
        totals[.published] = published
        return totals
    }

    /// A node's births (and a DCMD's answers) are no ticks, so the run's `published` leaves them
    /// out, though the verifier receives them: the pace weighs what arrived against both, or the
    /// births would hide a second that fell short (and the settle would stop before the last
    /// ticks came).
    @Test func thePaceCountsTheBirthsAsPublished() throws {
        let plan = try plan(yaml: Self.yaml)
        let verifier = try Verifier(plan: plan, logger: Logger(minimumLevel: .error) { _ in })
        verifier.subscribedNow.add(verifier.subscriptionFilters.count, ordering: .relaxed)
        verifier.notePace(Self.totals(published: 0), publisherChanges: 0)
        // A second: 10 ticks and 5 births published, all 15 received.
        verifier.publishedBeside.add(5, ordering: .relaxed)
        verifier.receivedCount.add(15, ordering: .relaxed)
        verifier.notePace(Self.totals(published: 10), publisherChanges: 0)
        // The next: 10 ticks, 8 received.
        verifier.receivedCount.add(8, ordering: .relaxed)
        verifier.notePace(Self.totals(published: 20), publisherChanges: 0)
        let summary = verifier.summary(
            published: plan.connections.map { .init(connection: $0, topic: $0.sparkplug!.topic.nodeFilter, count: 20) })
        #expect(summary.missingWhileConnected == 2, "\(summary)")
    }

    /// `--expect` on `lost` and `duplicated` is judged as for JSON; on `outOfOrder`, which the
    /// seq cannot judge, it is refused when every group is Sparkplug, rather than passed on a
    /// figure never measured.
    @Test func anExpectationOnOrderIsRefusedForSparkplugAlone() throws {
        var settings = RunSettings()
        settings.verify = true
        func problem(_ yaml: String, _ expectation: String) throws -> String? {
            let checks = RunChecks(expectations: [try Assertion(expectation)])
            let plan = try plan(yaml: yaml)
            do throws(RunCheckError) {
                try checks.check(plan, settings: settings)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(try problem(Self.yaml, "lost==0") == nil)
        #expect(try problem(Self.yaml, "duplicated==0") == nil)
        let order = try #require(try problem(Self.yaml, "outOfOrder==0"))
        #expect(order.contains("every device group is Sparkplug"), "\(order)")
        let mixed = Self.yaml + "\n  - { name: json, topic: t, publish: 1/s, payload: { fields: { seq: { counter: 0 } } } }"
        #expect(try problem(mixed, "outOfOrder==0") == nil, "a JSON group's order is judged")
    }

    @Test func aCapacityStepsLossIsRefusedForSparkplugInItsOwnWords() throws {
        let refusal = try #require(Verifier.stepLossRefusal(plan: try plan(yaml: Self.yaml)))
        #expect(refusal.contains("'filler' is a Sparkplug group, whose messages are numbered by edge node"), "\(refusal)")
    }
}
