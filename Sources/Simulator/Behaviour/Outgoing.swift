import Signals

/// What a device's source wrote for one tick or one state: the payloads, one after another in
/// the loop's buffer, and each message's topic and bytes; or how many messages the tick kept
/// back (`unchanged`). One for a loop, reused by every tick: nothing is allocated once it has
/// grown to a tick's size.
struct Outgoing: ~Copyable {
    /// One message: its topic, by the device's slot (`Device.topic(slot:)`: -1 for the
    /// device's own topic, else one of its field or recorded topics), and its payload's bytes in
    /// `payload`.
    struct Message {
        var slot: Int
        var bytes: Range<Int>
    }

    var payload = PayloadBuffer(capacity: 4096)
    /// The messages, the first `count` of `written`: kept, not removed, from one tick to the
    /// next (`removeAll(keepingCapacity:)` cost 67 instructions a tick: callgrind, publish: max).
    private var written: [Message] = []
    private(set) var count = 0
    /// Messages a tick did not send: nothing watched changed and its heartbeat is not due
    /// (`onChange`), or nothing changed for a Sparkplug device reporting by exception.
    var keptBack = 0

    init() {
        written.reserveCapacity(16)
    }

    /// Message `index` of those written.
    @inline(__always)
    subscript(index: Int) -> Message { written[index] }

    /// The messages written, in order.
    var messages: ArraySlice<Message> { written[..<count] }

    /// Empty, for the next tick.
    @inline(__always)
    mutating func clear() {
        payload.removeAll()
        count = 0
        keptBack = 0
    }

    /// The bytes written from `start` on are a message to `slot`.
    @inline(__always)
    mutating func add(slot: Int, from start: Int) {
        add(slot: slot, bytes: start..<payload.count)
    }

    /// `bytes` of the payload are a message to `slot`.
    @inline(__always)
    mutating func add(slot: Int, bytes: Range<Int>) {
        let message = Message(slot: slot, bytes: bytes)
        if count < written.count { written[count] = message } else { written.append(message) }
        count += 1
    }

    /// The messages written count as kept back: none goes out.
    mutating func keepBack() {
        keptBack += count
        count = 0
    }

    /// The message's payload.
    func withBytes<Result>(of message: Message, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try payload.withBytes { try body(UnsafeRawBufferPointer(rebasing: $0[message.bytes])) }
    }
}
