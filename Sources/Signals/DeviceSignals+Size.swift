/// `payload.size`: every payload exactly that long. The padding is spaces, which JSON allows
/// between any two tokens: written before the closing braces, a JSON payload stays the same
/// object to any parser, with no field added that a dashboard would show; a template's text
/// gets them at its end. One `memset` into the loop's buffer: nothing allocated.
extension DeviceSignals {
    /// Pads the payload written from `start` on with spaces so that, with the `closing` bytes
    /// still to come, it is `size` bytes long; a payload already longer is counted
    /// (`oversized`) and sent as it is, never cut: cut JSON is no JSON.
    @inline(__always)
    func pad(from start: Int, to size: Int, before closing: Int, into buffer: inout PayloadBuffer) {
        let length = buffer.count - start + closing
        if length <= size {
            lastPadding = buffer.count..<buffer.count + size - length
            buffer.append(repeating: UInt8(ascii: " "), count: size - length)
        } else {
            lastPadding = 0..<0
            oversized += 1
        }
    }

    /// Whether the device's payloads have a size to keep to: the one test its encode costs
    /// a group without.
    package var keepsSize: Bool { size != nil }

    /// The payloads longer than `size` since the last call (or since the device was made): what
    /// the simulator adds to its loop's counters after each encode of a sized payload.
    package func takeOversized() -> Int {
        let fresh = oversized - oversizedTaken
        oversizedTaken = oversized
        return fresh
    }

    /// The bytes of a `raw` payload, in a line a terminal shows: its length and its first bytes
    /// in hex, for `devsim sample` and the dry run.
    package static func rawText(_ bytes: [UInt8]) -> String {
        let shown = 16
        let hex = bytes.prefix(shown).map { byte in
            let digits: [Character] = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
        }
        return "raw \(bytes.count) bytes: " + hex.joined(separator: " ") + (bytes.count > shown ? " …" : "")
    }

    /// The payload just made as `devsim sample` shows it: its padding left out and its length
    /// said, so a line of 1,000 spaces does not hide the fields.
    package func sizedText(_ bytes: [UInt8]) -> String {
        guard size != nil, lastPadding.upperBound <= bytes.count else { return String(decoding: bytes, as: UTF8.self) }
        let text = String(decoding: bytes[..<lastPadding.lowerBound] + bytes[lastPadding.upperBound...], as: UTF8.self)
        return text + "  (\(bytes.count) bytes: \(lastPadding.count) spaces of padding not shown)"
    }

    /// Whether the payload is binary (`style: raw`): shown by `rawText`, never as text.
    package var isRaw: Bool { raw != nil }
}
