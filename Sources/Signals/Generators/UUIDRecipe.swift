/// `uuid: {}` (or `uuid:` with nothing after it): an RFC 4122 version-4 UUID in lowercase text,
/// a new one for each publish; `uuid: { perDevice: true }` gives each device one UUID for all its
/// publishes. Random in form, but drawn from the field's seed: a run replays them exactly.
package struct UUIDRecipe: GeneratorRecipe {
    package static let key = "uuid"
    package var perDevice: Bool

    package init(perDevice: Bool = false) {
        self.perDevice = perDevice
    }

    package init(parameters: any ParameterSource) throws(ParameterError) {
        try parameters.rejectShorthand(Self.key, expecting: "perDevice (true or false)")
        self.init(perDevice: try parameters.bool("perDevice") ?? false)
    }

    package func makeGenerator(context: GeneratorContext) -> any FieldGenerator {
        let seed = context.fieldSeed
        if perDevice {
            return ConstantRecipe(value: .string(Self.text(seed: seed.derive("device"))))
        }
        return Generator(seed: seed)
    }

    struct Generator: FieldGenerator {
        let seed: Seed

        func value(at instant: PublishInstant) -> SignalValue {
            .string(UUIDRecipe.text(seed: seed.derive(instant.index)))
        }
    }

    /// The version-4 UUID of `seed`: 122 random bits, the version nibble 4 and the variant bits 10.
    static func text(seed: Seed) -> String {
        var random = seed.generator()
        let high = random.next() & ~0xF000 | 0x4000
        let low = random.next() & ~(0xC << 60) | (0x8 << 60)
        return String(unsafeUninitializedCapacity: 36) { buffer in
            let digits: StaticString = "0123456789abcdef"
            var position = 0
            for nibble in 0..<32 {
                if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 {
                    buffer[position] = UInt8(ascii: "-")
                    position += 1
                }
                let word = nibble < 16 ? high : low
                let shift = UInt64(60 - 4 * (nibble % 16))
                buffer[position] = digits.utf8Start[Int((word >> shift) & 0xF)]
                position += 1
            }
            return position
        }
    }
}
