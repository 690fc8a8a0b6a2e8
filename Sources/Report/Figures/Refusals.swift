/// The QoS 1/2 messages the broker refused (`Figure.refused`), by the reason code of the PUBACK
/// or PUBREC that refused them. In the report, a list in the order of the codes:
/// `[{"code":135,"reason":"Not authorized","count":2000}]`; the reason is libmosquitto's words
/// for the code, written for the reader. The report knows no libmosquitto: whoever counts a
/// code gives its words (`Refusals+ReasonCode` in Simulator), and a report read back keeps its
/// own.
public struct Refusals: Codable, Sendable, Equatable {
    /// Count by reason code (0x80 and up).
    package private(set) var counts: [UInt8: Int] = [:]
    /// The words for each code counted, where they were given.
    private var words: [UInt8: String] = [:]

    public init() {}

    package var isEmpty: Bool { counts.isEmpty }
    package var total: Int { counts.values.reduce(0, +) }

    package mutating func add(_ code: UInt8, _ count: Int, reason: String?) {
        guard count != 0 else { return }
        counts[code, default: 0] += count
        if words[code] == nil, let reason { words[code] = reason }
    }

    /// Each reason, as `0x87` and in words, and its count, by code.
    package var byReason: [(code: String, reason: String, count: Int)] {
        counts.keys.sorted().map { code in (Self.hex(code), words[code] ?? "", counts[code]!) }
    }

    /// `0x87`, as the specification writes codes.
    private static func hex(_ code: UInt8) -> String {
        let digits = String(code, radix: 16, uppercase: true)
        return "0x" + (digits.count < 2 ? "0" : "") + digits
    }

    /// The same counts: the words are for the reader, and a report read back may lack them.
    public static func == (lhs: Refusals, rhs: Refusals) -> Bool { lhs.counts == rhs.counts }

    package static func + (lhs: Refusals, rhs: Refusals) -> Refusals {
        var sum = lhs
        for (code, count) in rhs.counts { sum.add(code, count, reason: rhs.words[code]) }
        return sum
    }

    private struct Entry: Codable {
        var code: Int
        var reason: String?
        var count: Int
    }

    public init(from decoder: any Decoder) throws {
        for entry in try [Entry](from: decoder) { add(UInt8(clamping: entry.code), entry.count, reason: entry.reason) }
    }

    public func encode(to encoder: any Encoder) throws {
        try counts.keys.sorted().map { Entry(code: Int($0), reason: words[$0], count: counts[$0]!) }.encode(to: encoder)
    }
}
