/// The seq of one Sparkplug B edge node's messages as `run --verify` receives them, where a
/// JSON device's counter cannot be read: 0–255 on every message of the node but its NDEATH
/// (NBIRTH, DBIRTH, NDATA, DDATA, DDEATH), one more a message, wrapping after 255, and 0 again
/// at each NBIRTH (Sparkplug 3.0, 6.4.1). Tells each message new, new past a gap, or a copy.
///
/// The node's messages are taken to arrive in the order it published them: one connection
/// publishes them, at QoS 0, and a broker forwards one client's messages to one subscriber in
/// the order it received them (MQTT 3.1.1, 4.6). So a message whose seq is `d` ahead of the last
/// one's (modulo 256) is new, and `d − 1` went missing between. Eight bits cannot tell `d − 1`
/// from `d − 1 + 256·k` missing: `missing` is what the seq shows, a lower bound. A message with
/// the last one's seq is a copy of it, or one 256 (or a multiple of 256) further on: the bytes
/// tell them apart (`fingerprint`), a copy repeating them. A message that came late, behind
/// others, reads as new past a gap; none is counted out of order.
///
/// An NBIRTH starts the count again: what went missing just before it leaves no gap in the seq.
/// The verifier's `lost` does not rest on the seq (it is what the node published, less what
/// arrived, less what it published while the verifier was away), so it counts those too; the
/// seq says which messages arrived once and which twice, and where gaps appeared
/// (`VerifyPace`).
package struct SparkplugSeqTracker: Sendable {
    /// Distinct messages received.
    package private(set) var received = 0
    /// Copies of the message received just before.
    package private(set) var duplicated = 0
    /// Messages the seq shows missing: a lower bound (see above), none before an NBIRTH.
    package private(set) var missing = 0
    /// NBIRTHs received: the first, and one a rebirth or a new connection.
    package private(set) var births = 0
    /// The last message's seq and fingerprint, once there is one.
    private var lastSeq: UInt8 = 0
    private var lastFingerprint: UInt64 = 0
    private var hasLast = false

    package enum Outcome: Equatable, Sendable {
        /// One not received before, right after the last (or the first, or an NBIRTH).
        case new
        /// One not received before, past seq numbers that never arrived.
        case newPastAGap
        /// The last message again.
        case duplicate
    }

    package init() {}

    /// Counts a message of the node with `seq`, an NBIRTH or not, whose bytes (and topic) make
    /// `fingerprint`.
    @discardableResult
    package mutating func record(seq: UInt8, isBirth: Bool, fingerprint: UInt64) -> Outcome {
        defer {
            lastSeq = seq
            lastFingerprint = fingerprint
            hasLast = true
        }
        if hasLast, seq == lastSeq, fingerprint == lastFingerprint {
            duplicated += 1
            return .duplicate
        }
        received += 1
        if isBirth {
            births += 1
            return .new
        }
        guard hasLast else { return .new }
        // 1–255 ahead; the same seq with other bytes is 256 ahead.
        let ahead = Int(seq &- lastSeq &- 1)
        missing += ahead
        return ahead > 0 ? .newPastAGap : .new
    }

    /// A message's bytes and topic, hashed: a copy hashes the same; a message 256 messages on,
    /// whose timestamp or metrics differ, does not.
    package static func fingerprint(_ payload: UnsafeRawBufferPointer, topic: UnsafeRawBufferPointer) -> UInt64 {
        mix(payload, into: mix(topic, into: 0xcbf2_9ce4_8422_2325))
    }

    /// FNV-1a's constants, eight bytes a step.
    private static func mix(_ bytes: UnsafeRawBufferPointer, into start: UInt64) -> UInt64 {
        let prime: UInt64 = 0x100_0000_01b3
        var hash = start
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* prime
            hash ^= hash >> 32
            offset += 8
        }
        while offset < bytes.count {
            hash = (hash ^ UInt64(bytes[offset])) &* prime
            offset += 1
        }
        return (hash ^ UInt64(bytes.count)) &* prime
    }
}
