/// The bytes of a payload as it is written: a growable buffer of its own memory that appends
/// without the uniqueness and bounds checks an `Array` makes on every append (a generic
/// `append(contentsOf:)` was about 90 instructions, a payload a dozen of them: callgrind,
/// publish: max). Not copyable, so it never shares its memory; the loop reuses one for every
/// payload it makes, and nothing is allocated once it has grown to a payload's size.
public struct PayloadBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    package private(set) var count = 0

    package init(capacity: Int = 256) {
        self.capacity = Swift.max(16, capacity)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deallocate()
    }

    package var isEmpty: Bool { count == 0 }

    /// Forgets the bytes, keeping the memory.
    @inline(__always)
    package mutating func removeAll() {
        count = 0
    }

    @inline(__always)
    package mutating func append(_ byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        base[count] = byte
        count += 1
    }

    @inline(__always)
    package mutating func append(contentsOf bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        if count + bytes.count > capacity { grow(to: count + bytes.count) }
        (base + count).initialize(from: source.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        count += bytes.count
    }

    @inline(__always)
    package mutating func append(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBytes { append(contentsOf: $0) }
    }

    package mutating func append(contentsOf utf8: String.UTF8View) {
        if let done: Void = utf8.withContiguousStorageIfAvailable({ append(contentsOf: UnsafeRawBufferPointer($0)) }) {
            return done
        }
        for byte in utf8 { append(byte) }
    }

    /// `length` bytes that `body` writes into the room it is given, in any order (digits come
    /// out least significant first); it must write every one.
    @inline(__always)
    package mutating func append(length: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) -> Void) {
        if count + length > capacity { grow(to: count + length) }
        body(UnsafeMutableBufferPointer(start: base + count, count: length))
        count += length
    }

    /// `count` copies of `byte`, set in one go (a memset): padding.
    @inline(__always)
    package mutating func append(repeating byte: UInt8, count: Int) {
        guard count > 0 else { return }
        if self.count + count > capacity { grow(to: self.count + count) }
        (base + self.count).initialize(repeating: byte, count: count)
        self.count += count
    }

    /// Appends `length` bytes that repeat those from `start` to the end, doubling what it copies
    /// at each step: a pattern of a few bytes fills a megabyte in a few dozen block copies.
    package mutating func appendRepeatingTail(from start: Int, length: Int) {
        precondition(start >= 0 && start < count, "PayloadBuffer.appendRepeatingTail without bytes to repeat")
        guard length > 0 else { return }
        if count + length > capacity { grow(to: count + length) }
        let end = count + length
        while count < end {
            // The bytes from `start` on are whole periods of the pattern: copy as many as fit.
            let chunk = Swift.min(count - start, end - count)
            (base + count).initialize(from: base + start, count: chunk)
            count += chunk
        }
    }

    /// `length` bytes written a 64-bit word at a time by `body`, which is given the room as
    /// words and the trailing bytes beyond the last whole word (fewer than 8) as bytes.
    @inline(__always)
    package mutating func append(
        words length: Int, _ body: (UnsafeMutableRawPointer, _ words: Int, _ tail: Int) -> Void
    ) {
        guard length > 0 else { return }
        if count + length > capacity { grow(to: count + length) }
        body(UnsafeMutableRawPointer(base + count), length / 8, length % 8)
        count += length
    }

    /// Sets the byte at `index`, one already written (a length placeholder).
    @inline(__always)
    package mutating func setByte(_ byte: UInt8, at index: Int) {
        precondition(index >= 0 && index < count, "PayloadBuffer.setByte past the bytes written")
        base[index] = byte
    }

    /// Moves the bytes from `index` on `length` places further, leaving `length` bytes at
    /// `index` for the caller to set: a submessage's length that needs more than the one byte
    /// kept for it.
    package mutating func openGap(_ length: Int, at index: Int) {
        precondition(index >= 0 && index <= count && length >= 0, "PayloadBuffer.openGap past the bytes written")
        if count + length > capacity { grow(to: count + length) }
        (base + index + length).update(from: base + index, count: count - index)
        count += length
    }

    /// The bytes so far, for the length of `body`. Public, as `PayloadBuffer` is, though only
    /// the package uses them: the optimizer offers other modules the bodies of public functions
    /// alone, and called instead of inlined, with its caller's closure, this cost 80 instructions
    /// a message (callgrind, publish: max; `@inlinable package` did not bring it back).
    public func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The bytes so far, copied.
    package var bytes: [UInt8] { withBytes { Array($0) } }

    /// The bytes so far as UTF-8 text.
    package var text: String { withBytes { String(decoding: $0, as: UTF8.self) } }

    private mutating func grow(to needed: Int) {
        var capacity = self.capacity
        while capacity < needed { capacity *= 2 }
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        bigger.initialize(from: base, count: count)
        base.deallocate()
        base = bigger
        self.capacity = capacity
    }
}
