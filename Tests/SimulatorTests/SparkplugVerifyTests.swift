import Testing

@testable import Simulator

/// Issue 28, item 6: `run --verify` judges a Sparkplug edge node's messages by the node's seq
/// (0–255, wrapping, 0 again at each NBIRTH), where no counter field can be read: the per-node
/// tracker.
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
}
