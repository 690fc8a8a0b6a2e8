import Mosquitto

/// The QoS 1/2 messages the broker refused (`Figure.refused`), by the reason code of the PUBACK
/// or PUBREC that refused them. In the report, a list in the order of the codes:
/// `[{"code":135,"reason":"Not authorized","count":2000}]`; the reason is libmosquitto's words
/// for the code, written for the reader and not read back.
public struct Refusals: Codable, Sendable, Equatable {
    /// Count by reason code (0x80 and up).
    package private(set) var counts: [UInt8: Int] = [:]

    public init() {}

    package var isEmpty: Bool { counts.isEmpty }
    package var total: Int { counts.values.reduce(0, +) }

    package mutating func add(_ code: UInt8, _ count: Int) {
        guard count != 0 else { return }
        counts[code, default: 0] += count
    }

    /// Each reason, as `0x87` and in words, and its count, by code.
    package var byReason: [(code: String, reason: String, count: Int)] {
        counts.keys.sorted().map { code in
            let reason = ReasonCode(rawValue: code)
            return (reason.hex, reason.words, counts[code]!)
        }
    }

    package static func + (lhs: Refusals, rhs: Refusals) -> Refusals {
        var sum = lhs
        for (code, count) in rhs.counts { sum.add(code, count) }
        return sum
    }

    private struct Entry: Codable {
        var code: Int
        var reason: String?
        var count: Int
    }

    public init(from decoder: any Decoder) throws {
        for entry in try [Entry](from: decoder) { add(UInt8(clamping: entry.code), entry.count) }
    }

    public func encode(to encoder: any Encoder) throws {
        try counts.keys.sorted().map { Entry(code: Int($0), reason: ReasonCode(rawValue: $0).words, count: counts[$0]!) }
            .encode(to: encoder)
    }
}
