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
            buffer.append(repeating: UInt8(ascii: " "), count: size - length)
        } else {
            oversized += 1
        }
    }

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

    /// A padded payload as `devsim sample` and the live page show it: its padding left out and
    /// its length said, so a line of 1,000 spaces does not hide the fields. The padding is the
    /// spaces before the closing braces (a field's value never ends in a space outside its
    /// quotes), or a template's at its end. Static, so that the publish path hands it over
    /// without making a closure.
    package static func sizedText(_ bytes: [UInt8]) -> String {
        let brace = UInt8(ascii: "}")
        let space = UInt8(ascii: " ")
        var end = bytes.count
        while end > 0, bytes[end - 1] == brace { end -= 1 }
        var start = end
        while start > 0, bytes[start - 1] == space { start -= 1 }
        if start == end {
            end = bytes.count
            start = end
            while start > 0, bytes[start - 1] == space { start -= 1 }
        }
        let text = String(decoding: bytes[..<start] + bytes[end...], as: UTF8.self)
        return start == end ? text : text + "  (\(bytes.count) bytes: \(end - start) spaces of padding not shown)"
    }

    /// A `raw` payload: its bytes field's bytes.
    @inline(never)
    func writeRaw(at instant: PublishInstant, into buffer: inout PayloadBuffer) {
        raw?.write(rawSize, at: instant, into: &buffer)
    }
}
