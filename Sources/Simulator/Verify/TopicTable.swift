import Glibc

/// Topic bytes → index, looked up straight from the bytes libmosquitto hands over: no `String`
/// made per message. Open addressing with linear probing, at most half full.
struct TopicTable {
    private var keys: [[UInt8]] = []
    private var values: [Int] = []
    private var slots: [Int32]
    private let mask: Int

    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = Array(repeating: -1, count: size)
        mask = size - 1
    }

    /// Adds `topic` → `value` unless the topic is there already; returns the value it maps to.
    @discardableResult
    mutating func insert(_ topic: String, _ value: Int) -> Int {
        let bytes = Array(topic.utf8)
        if let existing = bytes.withUnsafeBytes({ self[$0] }) { return existing }
        var slot = bytes.withUnsafeBytes { Self.hash($0) } & mask
        while slots[slot] >= 0 { slot = (slot + 1) & mask }
        slots[slot] = Int32(keys.count)
        keys.append(bytes)
        values.append(value)
        return value
    }

    subscript(topic: UnsafeRawBufferPointer) -> Int? {
        var slot = Self.hash(topic) & mask
        while true {
            let entry = Int(slots[slot])
            guard entry >= 0 else { return nil }
            let key = keys[entry]
            if key.count == topic.count,
                key.withUnsafeBytes({ topic.count == 0 || memcmp($0.baseAddress!, topic.baseAddress!, topic.count) == 0 })
            {
                return values[entry]
            }
            slot = (slot + 1) & mask
        }
    }

    /// FNV-1a.
    private static func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return Int(truncatingIfNeeded: hash ^ (hash >> 32))
    }
}
