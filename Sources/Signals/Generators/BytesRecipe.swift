/// `bytes: 64KB` or `bytes: { size: 64KB, content: random }`: a binary value, the one field of
/// a `style: raw` payload, written as the payload itself. `content: random` (the default) draws
/// new bytes for every publish from the field's seed, so a run replays them exactly;
/// `content: repeat` repeats `pattern` (text, its UTF-8 bytes; every byte value 0x00 to 0xFF in
/// order without one). Without `size` the payload's `size` gives it.
///
/// Bytes are no JSON value: the loader refuses them in any other style, so `value(at:)` is never
/// asked for; `DeviceSignals` has the generator write them (`write(at:into:)`).
package struct BytesRecipe: GeneratorRecipe {
    package static let key = "bytes"

    package enum Content: String, Sendable, CaseIterable {
        case random
        case `repeat`
    }

    /// The bytes' length; `nil` to take the payload's `size`.
    package var size: Int?
    package var content: Content
    /// What `repeat` repeats; never empty.
    package var pattern: [UInt8]

    /// Every byte value once, in order: what `repeat` repeats without a `pattern`.
    package static let everyByte: [UInt8] = (0...255).map { UInt8($0) }

    package init(size: Int? = nil, content: Content = .random, pattern: [UInt8] = BytesRecipe.everyByte) {
        self.size = size
        self.content = content
        self.pattern = pattern.isEmpty ? Self.everyByte : pattern
    }

    package init(parameters: any ParameterSource) throws(ParameterError) {
        if let shorthand = parameters.shorthand {
            guard let size = parameters.size(of: shorthand) else {
                throw ParameterError(
                    key: nil, "bytes takes its size, such as 64KB, or a map with size, content and pattern, found '\(shorthand)'")
            }
            self.init(size: size)
            return
        }
        let size = try parameters.size("size")
        let contentText = try parameters.string("content") ?? Content.random.rawValue
        guard let content = Content(rawValue: contentText) else {
            throw ParameterError(
                key: "content", "expected random or repeat for 'content', found '\(contentText)'")
        }
        let pattern = try parameters.string("pattern")
        if let pattern {
            guard content == .repeat else {
                throw ParameterError(key: "pattern", "'pattern' is what content: repeat repeats; this field's content is random")
            }
            guard !pattern.isEmpty else { throw ParameterError(key: "pattern", "expected at least one character for 'pattern'") }
        }
        self.init(size: size, content: content, pattern: pattern.map { Array($0.utf8) } ?? Self.everyByte)
    }

    package func makeGenerator(context: GeneratorContext) -> any FieldGenerator {
        Generator(content: content, pattern: pattern, seed: context.fieldSeed)
    }

    package var valueKind: ValueKind { .text }

    package struct Generator: FieldGenerator {
        let content: Content
        let pattern: [UInt8]
        let seed: Seed

        /// Bytes are written, not valued: see `write(_:at:into:)`.
        package func value(at instant: PublishInstant) -> SignalValue { .null }

        /// Appends `length` bytes of the publish at `instant`.
        func write(_ length: Int, at instant: PublishInstant, into buffer: inout PayloadBuffer) {
            switch content {
            case .random:
                // A stream per publish, as a uuid's: the bytes of a message do not depend on the
                // ones before, and 8 bytes a draw.
                var random = seed.derive(instant.index).generator()
                buffer.append(words: length) { room, words, tail in
                    for word in 0..<words {
                        room.storeBytes(of: random.next().littleEndian, toByteOffset: word * 8, as: UInt64.self)
                    }
                    var last = random.next()
                    for byte in 0..<tail {
                        room.storeBytes(of: UInt8(truncatingIfNeeded: last), toByteOffset: words * 8 + byte, as: UInt8.self)
                        last >>= 8
                    }
                }
            case .repeat:
                let start = buffer.count
                let first = Swift.min(length, pattern.count)
                pattern.withUnsafeBytes { buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[0..<first])) }
                if length > first { buffer.appendRepeatingTail(from: start, length: length - first) }
            }
        }
    }
}
