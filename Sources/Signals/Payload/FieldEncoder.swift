/// One field of one device's payload: its key already encoded, its generator, and the modifiers
/// applied to its numbers (noise, then clamps, then rounding for output).
final class FieldEncoder {
    /// `"name":`, with the separating comma for every field but the first: written as one block.
    let key: [UInt8]
    let generator: any FieldGenerator
    let decimals: Int?
    /// σ of the gaussian noise; 0 for none.
    let noise: Double
    let noiseSeed: Seed
    let min: Double?
    let max: Double?

    init(spec: FieldSpec, isFirst: Bool, context: GeneratorContext) {
        var key: [UInt8] = isFirst ? [] : [UInt8(ascii: ",")]
        JSONWriter.writeString(spec.name, into: &key)
        key.append(UInt8(ascii: ":"))
        self.key = key
        generator = spec.generator.makeGenerator(context: context)
        decimals = spec.decimals
        noise = spec.noise.map { $0.isFinite ? Swift.max($0, 0) : 0 } ?? 0
        noiseSeed = context.fieldSeed.derive("noise")
        min = spec.min
        max = spec.max
    }

    var modifiesNumbers: Bool {
        noise > 0 || min != nil || max != nil
    }

    func encode(at instant: PublishInstant, into buffer: inout [UInt8]) {
        buffer.append(contentsOf: key)
        switch generator.value(at: instant) {
        case .number(let value):
            JSONWriter.writeNumber(modified(value, sample: instant.sample.index), decimals: decimals, into: &buffer)
        case .integer(let value):
            if modifiesNumbers {
                JSONWriter.writeNumber(modified(Double(value), sample: instant.sample.index), decimals: decimals, into: &buffer)
            } else {
                JSONWriter.writeInteger(value, decimals: decimals, into: &buffer)
            }
        case .bool(let value):
            JSONWriter.writeBool(value, into: &buffer)
        case .string(let value):
            JSONWriter.writeString(value, into: &buffer)
        case .utcTimestamp(let milliseconds):
            UTCTimestamp.writeISO8601(milliseconds: milliseconds, into: &buffer)
        case .null:
            JSONWriter.writeNull(into: &buffer)
        }
    }

    func modified(_ value: Double, sample: Int) -> Double {
        var result = value
        if noise > 0 {
            // The noise of a sample is drawn from that sample's own stream, like the value itself.
            var random = noiseSeed.derive(sample).generator()
            result += noise * random.nextGaussian()
        }
        if let min, result < min { result = min }
        if let max, result > max { result = max }
        return result
    }
}
