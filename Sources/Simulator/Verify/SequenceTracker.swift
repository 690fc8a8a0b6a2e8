/// The sequence numbers (tick indexes) received on one topic: how many were new, seen before,
/// or came after a higher one.
///
/// Memory is bounded: the numbers seen are kept in a ring bitmap of the last `window` numbers
/// below the highest seen (256 bytes a device). A number further back than that cannot be told
/// from a duplicate; it is counted as new and out of order, and in `beyondWindow`.
package struct SequenceTracker: Sendable {
    package static let window = 2048
    private static let words = window / 64

    /// Distinct sequence numbers received.
    package private(set) var received = 0
    /// Copies of a number already received.
    package private(set) var duplicated = 0
    /// New numbers that came after a higher one.
    package private(set) var outOfOrder = 0
    /// Numbers too far below the highest to be checked against the bitmap.
    package private(set) var beyondWindow = 0
    package private(set) var highest: Int64 = 0
    package private(set) var lowest: Int64 = 0
    /// Made on the first number, so a topic that never receives costs nothing.
    private var bits: [UInt64] = []

    package enum Outcome: Equatable, Sendable {
        case new, duplicate, outOfOrder
    }

    package init() {}

    /// Numbers between the lowest and the highest received that never arrived.
    package var gaps: Int64 { received == 0 ? 0 : highest - lowest + 1 - Int64(received) }

    @discardableResult
    package mutating func record(_ sequence: Int64) -> Outcome {
        if bits.isEmpty {
            bits = Array(repeating: 0, count: Self.words)
            highest = sequence
            lowest = sequence
            set(sequence)
            received = 1
            return .new
        }
        if sequence > highest {
            let distance = sequence &- highest
            if distance >= Int64(Self.window) || distance < 0 {
                for index in bits.indices { bits[index] = 0 }
            } else {
                var number = highest &+ 1
                while number < sequence {
                    clear(number)
                    number &+= 1
                }
            }
            highest = sequence
            set(sequence)
            received += 1
            return .new
        }
        if highest &- sequence >= Int64(Self.window) {
            beyondWindow += 1
            received += 1
            outOfOrder += 1
            lowest = min(lowest, sequence)
            return .outOfOrder
        }
        if isSet(sequence) {
            duplicated += 1
            return .duplicate
        }
        set(sequence)
        received += 1
        outOfOrder += 1
        lowest = min(lowest, sequence)
        return .outOfOrder
    }

    @inline(__always)
    private static func position(_ sequence: Int64) -> (word: Int, mask: UInt64) {
        let bit = Int(UInt64(bitPattern: sequence) % UInt64(window))
        return (bit >> 6, 1 << UInt64(bit & 63))
    }

    private mutating func set(_ sequence: Int64) {
        let (word, mask) = Self.position(sequence)
        bits[word] |= mask
    }

    private mutating func clear(_ sequence: Int64) {
        let (word, mask) = Self.position(sequence)
        bits[word] &= ~mask
    }

    private func isSet(_ sequence: Int64) -> Bool {
        let (word, mask) = Self.position(sequence)
        return bits[word] & mask != 0
    }
}
