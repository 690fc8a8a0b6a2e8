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
    /// The field's name, for a command that names it.
    let name: String
    /// What a command may do to it, and what it checks a value against.
    let command: FieldCommand?
    let kind: ValueKind
    private let options: [SignalValue]?
    private let centre: Double?
    /// What a command's number keeps to (`FieldSpec.commandBounds`), and a moved value too.
    private let commandBounds: (min: Double?, max: Double?)
    /// Whether an `onChange` group watches the field: its value's bytes are kept (`written`)
    /// to compare with those last sent (`sent`).
    var isWatched = false
    private(set) var written: [UInt8] = []
    var sent: [UInt8] = []

    /// Keeps the bytes from `start` on as the field's written value, when it is watched.
    @inline(__always)
    private func noteWritten(_ buffer: borrowing PayloadBuffer, from start: Int) {
        guard isWatched else { return }
        written.removeAll(keepingCapacity: true)
        buffer.withBytes { written.append(contentsOf: $0[start...]) }
    }

    /// Whether the field keeps its last published number (`lastNumber`), for an `integral` of it.
    var keepsLastNumber = false
    /// The number it published last, as written (rounded to its decimals); `nil` for none.
    var lastNumber: Double?

    /// What commands made of it; `isCommanded` is the one test the publish path pays for it.
    private var commanded = CommandedState()
    private(set) var isCommanded = false

    /// Reads the field's seed from `context.fieldName`, which the caller has set to the field's
    /// name (or, inside a group, its dotted path: `location.lat`).
    init(spec: FieldSpec, context: GeneratorContext, tally: FaultTally) {
        var key = PayloadBuffer()
        JSONWriter.writeString(spec.name, into: &key)
        key.append(UInt8(ascii: ":"))
        self.key = key.bytes
        name = spec.name
        command = spec.command
        kind = spec.generator?.valueKind ?? .text
        options = spec.generator?.options
        centre = spec.generator?.centre
        commandBounds = spec.commandBounds
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

    /// The field in one publish: how it drops out, or else its value after commands and
    /// modifiers (numbers not yet rounded).
    struct Reading {
        var dropout: FieldFaults.Dropout.Mode?
        var value: SignalValue
    }

    /// Whether a formula reads the field: its reading is then kept for the publish (`kept`), so
    /// that the formula and the payload show one value, its faults fire once, and a field read
    /// before its turn is not made twice.
    var isRead = false
    private var kept = Reading(dropout: nil, value: .null)
    private var keptIndex = -1

    /// The field in the publish at `instant`: decided once per publish, whichever asks first.
    @inline(__always)
    func reading(at instant: PublishInstant) -> Reading {
        guard isRead else { return read(at: instant) }
        if keptIndex != instant.index {
            kept = read(at: instant)
            keptIndex = instant.index
        }
        return kept
    }

    /// Sets the field's value in the publish at `instant` to `value` (`null`: it drops out), as a
    /// device's script changed it: written from then on as any value of the field is. Only for a
    /// field whose readings are kept (`isRead`), which a scripted device's all are.
    func replace(with value: SignalValue, at instant: PublishInstant) {
        kept = value == .null ? Reading(dropout: .omit, value: .null) : Reading(dropout: nil, value: value)
        keptIndex = instant.index
        replacedIndex = instant.index
    }

    /// The publish whose value a script set last (`replace`).
    private(set) var replacedIndex = -1

    /// Forgets the reading kept for this publish, so that the next one asked is made again: a
    /// formula's, after a script changed a field it reads.
    func forgetReading() {
        keptIndex = -1
    }

    /// The value a formula reads: as the payload shows it (numbers rounded to the field's
    /// decimals), `null` when the field drops out.
    func publishedValue(at instant: PublishInstant) -> SignalValue {
        let reading = reading(at: instant)
        guard reading.dropout == nil else { return .null }
        if case .number(let number) = reading.value { return .number(asWritten(number)) }
        return reading.value
    }

    @inline(__always)
    private func read(at instant: PublishInstant) -> Reading {
        if let dropout = faults?.dropout(at: instant) {
            // Read all the same: an aggregating accelerometer closes its mean/max window when
            // read, and the next publish must not sum up two windows.
            _ = generator.value(at: instant)
            return Reading(dropout: dropout, value: .null)
        }
        var value = generator.value(at: instant)
        if isCommanded { value = commandedValue(value, at: instant) }
        if keepsLastNumber { lastNumber = nil }
        switch value {
        case .number(let number):
            let modified = modified(number, at: instant)
            if keepsLastNumber { lastNumber = asWritten(modified) }
            return Reading(dropout: nil, value: .number(modified))
        case .integer(let integer):
            guard modifiesNumbers else {
                if keepsLastNumber { lastNumber = Double(integer) }
                return Reading(dropout: nil, value: value)
            }
            let modified = modified(Double(integer), at: instant)
            if keepsLastNumber { lastNumber = asWritten(modified) }
            return Reading(dropout: nil, value: .number(modified))
        default:
            return Reading(dropout: nil, value: value)
        }
    }

    /// Writes `"name":value` to an object, preceded by a comma when `separated`; nothing when the
    /// field drops out and is omitted. Returns whether it wrote.
    func writeMember(at instant: PublishInstant, into buffer: inout PayloadBuffer, separated: Bool) -> Bool {
        let reading = isGroup ? Reading(dropout: nil, value: .null) : reading(at: instant)
        if reading.dropout == .omit {
            if isWatched { written.removeAll(keepingCapacity: true) }
            return false
        }
        if separated { buffer.append(Self.comma) }
        // Through its bytes: appending the array itself retains and releases it.
        key.withUnsafeBytes { buffer.append(contentsOf: $0) }
        let start = buffer.count
        write(reading, at: instant, into: &buffer, quoted: true)
        noteWritten(buffer, from: start)
        return true
    }

    /// Writes the field's bare value as a message of its own (`PayloadStyle.perField`): text
    /// without quotes, a group as its JSON object; nothing when it drops out and is omitted.
    /// Returns whether it wrote.
    func writeAlone(at instant: PublishInstant, into buffer: inout PayloadBuffer) -> Bool {
        let reading = isGroup ? Reading(dropout: nil, value: .null) : reading(at: instant)
        if reading.dropout == .omit {
            if isWatched { written.removeAll(keepingCapacity: true) }
            return false
        }
        let start = buffer.count
        write(reading, at: instant, into: &buffer, quoted: false)
        noteWritten(buffer, from: start)
        return true
    }

    /// Writes the value for a template placeholder: strings without quotes, nothing when the field
    /// drops out and is omitted.
    func writeTemplateValue(at instant: PublishInstant, into buffer: inout PayloadBuffer) {
        let reading = isGroup ? Reading(dropout: nil, value: .null) : reading(at: instant)
        let start = buffer.count
        if reading.dropout != .omit { write(reading, at: instant, into: &buffer, quoted: false) }
        noteWritten(buffer, from: start)
    }

    /// Writes the value as JSON (`null` for a dropout), a group as its object; with `quoted`
    /// false, a string or timestamp without its quotes (and without escapes), as a template
    /// wants it.
    @inline(__always)
    private func write(_ reading: Reading, at instant: PublishInstant, into buffer: inout PayloadBuffer, quoted: Bool) {
        if isGroup {
            buffer.append(UInt8(ascii: "{"))
            members.writeMembers(at: instant, into: &buffer)
            buffer.append(UInt8(ascii: "}"))
            return
        }
        if reading.dropout != nil {
            JSONWriter.writeNull(into: &buffer)
            return
        }
        switch reading.value {
        case .number(let value):
            JSONWriter.writeNumber(value, decimals: decimals, into: &buffer)
        case .integer(let value):
            JSONWriter.writeInteger(value, decimals: decimals, into: &buffer)
        case .bool(let value):
            JSONWriter.writeBool(value, into: &buffer)
        case .string(let value):
            if quoted {
                JSONWriter.writeString(value, into: &buffer)
            } else {
                buffer.append(contentsOf: value.utf8)
            }
        case .utcTimestamp(let milliseconds):
            UTCTimestamp.writeISO8601(milliseconds: milliseconds, fractionDigits: decimals ?? 3, quoted: quoted, into: &buffer)
        case .null:
            JSONWriter.writeNull(into: &buffer)
        }
    }

    /// `number` as the payload shows it: rounded to the field's decimals.
    func asWritten(_ number: Double) -> Double {
        guard let decimals else { return number }
        let scale = JSONWriter.powersOfTen[Swift.min(Swift.max(decimals, 0), JSONWriter.maximumDecimals)]
        return (number * scale).rounded(.toNearestOrAwayFromZero) / scale
    }

    /// The generator's value as commands left it: replaced (`set`), or moved with the centre
    /// (`setpoint`). The generator is read all the same, so its state goes on as without.
    func commandedValue(_ value: SignalValue, at instant: PublishInstant) -> SignalValue {
        if let set = commanded.value { return set }
        guard case .setpoint(let perSecond) = command, let centre else { return value }
        let offset = commanded.offset(at: instant.sample.time, centre: centre, perSecond: perSecond)
        let moved: Double
        switch value {
        case .number(let number): moved = number + offset
        case .integer(let number): moved = Double(number) + offset
        default: return value
        }
        return .number(Swift.min(Swift.max(moved, commandBounds.min ?? -.infinity), commandBounds.max ?? .infinity))
    }

    /// With `command: setpoint`, where its centre is told to go: the last command's target, or
    /// its own centre before any; `nil` for a field without a setpoint.
    var setpoint: Double? {
        guard case .setpoint = command else { return nil }
        return commanded.target ?? centre
    }

    /// Takes a command's value, checked against the field: its type, its `min` and `max`, its
    /// choices. Applied from the next publish on; with `checkOnly`, only checked. A field that
    /// reports another's setpoint (`setpoint: { of: … }`) takes a value as that setpoint, as a
    /// SCADA host writes a setpoint tag and a thermostat's target is set: the field it reports
    /// moves there, and it reports it.
    func take(_ value: CommandValue, checkOnly: Bool = false) throws(CommandRejection) {
        if let reported = (generator as? SetpointRecipe.Target)?.field {
            return try reported.take(value, checkOnly: checkOnly, writtenAs: name)
        }
        try take(value, checkOnly: checkOnly, writtenAs: name)
    }

    /// `take`, its rejections naming `written`, the field the command wrote.
    private func take(_ value: CommandValue, checkOnly: Bool, writtenAs written: String) throws(CommandRejection) {
        guard let command else {
            // A field with a centre is a process value: what moves it is a setpoint, which
            // `set` would not be (it replaces the value, and the walk stops).
            let hint = centre == nil ? "give it command: set" : "give it command: { setpoint: 1/min } to move it there, or command: set"
            throw CommandRejection("field '\(written)' takes no command (\(hint))", kind: CommandRejection.noCommandedField)
        }
        switch command {
        case .set:
            let checked = try checked(value)
            if !checkOnly { commanded.value = checked }
        case .setpoint:
            guard case .number(let number) = value else {
                throw CommandRejection(
                    "field '\(written)' takes a number as its setpoint, not \(value.words)",
                    kind: "field '\(written)' takes a number as its setpoint")
            }
            try checkBounds(number, of: written)
            if !checkOnly { commanded.target = number }
        }
        if !checkOnly { isCommanded = true }
    }

    private func checked(_ value: CommandValue) throws(CommandRejection) -> SignalValue {
        switch (kind, value) {
        case (.bool, .bool(let on)):
            return .bool(on)
        case (.bool, .text(let text)) where ["on", "off"].contains(text.lowercased()):
            return .bool(text.lowercased() == "on")
        case (.bool, .number(let number)) where number == 0 || number == 1:
            return .bool(number == 1)
        case (.bool, _):
            throw CommandRejection(
                "field '\(name)' is switched with true or false (ON or OFF), not \(value.words)",
                kind: "field '\(name)' is switched with true or false")
        case (_, _) where options != nil:
            let candidate: SignalValue =
                switch value {
                case .number(let number): .number(number)
                case .bool(let on): .bool(on)
                case .text(let text): .string(text)
                }
            guard let chosen = (options ?? []).first(where: { Self.same($0, candidate) }) else {
                throw CommandRejection(
                    "field '\(name)' is one of its choices, not \(value.words)", kind: "field '\(name)' is one of its choices")
            }
            return chosen
        case (.number, .number(let number)):
            try checkBounds(number, of: name)
            return .number(number)
        case (.number, _):
            throw CommandRejection("field '\(name)' takes a number, not \(value.words)", kind: "field '\(name)' takes a number")
        case (_, .text(let text)):
            return .string(text)
        case (_, .number(let number)):
            return .string(CommandValue.number(number).words)
        case (_, .bool(let on)):
            return .string(String(on))
        }
    }

    private func checkBounds(_ number: Double, of written: String) throws(CommandRejection) {
        if let min = commandBounds.min, number < min {
            throw CommandRejection("field '\(written)' is at least \(CommandValue.number(min).words)")
        }
        if let max = commandBounds.max, number > max {
            throw CommandRejection("field '\(written)' is at most \(CommandValue.number(max).words)")
        }
    }

    /// A choice and a command's value are the same: a number whatever its form, or written as
    /// text (a dashboard's template quotes what it sends).
    private static func same(_ option: SignalValue, _ value: SignalValue) -> Bool {
        switch (option, value) {
        case (.integer(let a), .number(let b)): Double(a) == b
        case (.integer(let a), .string(let b)): Double(b) == Double(a)
        case (.number(let a), .string(let b)): Double(b) == a
        case (.bool(let a), .string(let b)): b == String(a)
        default: option == value
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
