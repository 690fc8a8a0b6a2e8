/// One field of one device's payload: its key already encoded, and either its generator with the
/// modifiers and faults applied to its numbers (noise, then clamps, then faults, then rounding for
/// output), or the members of a nested object.
final class FieldEncoder {
    /// `"name":`, written as one block after the separating comma, if any.
    let key: [UInt8]
    /// Unused for a group, whose value is the object of `members`. Not an optional: unwrapping
    /// one copies the existential on every publish, which measured a tenth of the encode time.
    let generator: any FieldGenerator
    let isGroup: Bool
    let members: FieldList
    let decimals: Int?
    /// σ of the gaussian noise; 0 for none.
    let noise: Double
    let noiseSeed: Seed
    let min: Double?
    let max: Double?
    let faults: FaultInjector?
    /// Whether numbers go through `modified` at all: integers stay exact when nothing changes them.
    let modifiesNumbers: Bool

    /// Reads the field's seed from `context.fieldName`, which the caller has set to the field's
    /// name (or, inside a group, its dotted path: `location.lat`).
    init(spec: FieldSpec, context: GeneratorContext, tally: FaultTally) {
        var key = PayloadBuffer()
        JSONWriter.writeString(spec.name, into: &key)
        key.append(UInt8(ascii: ":"))
        self.key = key.bytes
        let fieldSeed = context.fieldSeed
        switch spec.content {
        case .generator(let recipe):
            generator = recipe.makeGenerator(context: context)
            isGroup = false
            members = FieldList([])
        case .group(let specs):
            generator = ConstantRecipe(value: .null)
            isGroup = true
            let path = context.fieldName
            members = FieldList(
                specs.map { member in
                    context.fieldName = path + "." + member.name
                    return FieldEncoder(spec: member, context: context, tally: tally)
                })
            context.fieldName = path
        }
        decimals = spec.decimals
        noise = spec.noise.map { $0.isFinite ? Swift.max($0, 0) : 0 } ?? 0
        noiseSeed = fieldSeed.derive("noise")
        min = spec.min
        max = spec.max
        let faults =
            spec.faults.isEmpty || isGroup
            ? nil
            : FaultInjector(faults: spec.faults, fieldSeed: fieldSeed, tally: tally)
        self.faults = faults
        modifiesNumbers = noise > 0 || min != nil || max != nil || faults?.modifiesNumbers == true
    }

    static let comma = UInt8(ascii: ",")

    /// Writes `"name":value` to an object, preceded by a comma when `separated`; nothing when the
    /// field drops out and is omitted. Returns whether it wrote.
    func writeMember(at instant: PublishInstant, into buffer: inout PayloadBuffer, separated: Bool) -> Bool {
        let dropout = faults?.dropout(at: instant)
        if dropout != nil { readAndDiscard(at: instant) }
        if dropout == .omit { return false }
        if separated { buffer.append(Self.comma) }
        // Through its bytes: appending the array itself retains and releases it.
        key.withUnsafeBytes { buffer.append(contentsOf: $0) }
        if dropout == .null {
            JSONWriter.writeNull(into: &buffer)
        } else {
            writeValue(at: instant, into: &buffer, quoted: true)
        }
        return true
    }

    /// Writes the value for a template placeholder: strings without quotes, nothing when the field
    /// drops out and is omitted.
    func writeTemplateValue(at instant: PublishInstant, into buffer: inout PayloadBuffer) {
        if let dropout = faults?.dropout(at: instant) {
            readAndDiscard(at: instant)
            if dropout == .null { JSONWriter.writeNull(into: &buffer) }
            return
        }
        writeValue(at: instant, into: &buffer, quoted: false)
    }

    /// Reads the value a dropout hides all the same: an aggregating accelerometer closes its
    /// mean/max window when read, and the next publish must not sum up two windows.
    private func readAndDiscard(at instant: PublishInstant) {
        if !isGroup { _ = generator.value(at: instant) }
    }

    /// Writes the value as JSON; with `quoted` false, a string or timestamp without its quotes
    /// (and without escapes), as a template wants it.
    func writeValue(at instant: PublishInstant, into buffer: inout PayloadBuffer, quoted: Bool) {
        if isGroup {
            buffer.append(UInt8(ascii: "{"))
            members.writeMembers(at: instant, into: &buffer)
            buffer.append(UInt8(ascii: "}"))
            return
        }
        switch generator.value(at: instant) {
        case .number(let value):
            JSONWriter.writeNumber(modified(value, at: instant), decimals: decimals, into: &buffer)
        case .integer(let value):
            if modifiesNumbers {
                JSONWriter.writeNumber(modified(Double(value), at: instant), decimals: decimals, into: &buffer)
            } else {
                JSONWriter.writeInteger(value, decimals: decimals, into: &buffer)
            }
        case .bool(let value):
            JSONWriter.writeBool(value, into: &buffer)
        case .string(let value):
            if quoted {
                JSONWriter.writeString(value, into: &buffer)
            } else {
                buffer.append(contentsOf: value.utf8)
            }
        case .utcTimestamp(let milliseconds):
            UTCTimestamp.writeISO8601(milliseconds: milliseconds, quoted: quoted, into: &buffer)
        case .null:
            JSONWriter.writeNull(into: &buffer)
        }
    }

    func modified(_ value: Double, at instant: PublishInstant) -> Double {
        var result = value
        if noise > 0 {
            // The noise of a sample is drawn from that sample's own stream, like the value itself.
            var random = noiseSeed.derive(instant.sample.index).generator()
            result += noise * random.nextGaussian()
        }
        if let min, result < min { result = min }
        if let max, result > max { result = max }
        if let faults { result = faults.apply(result, at: instant) }
        return result
    }
}
