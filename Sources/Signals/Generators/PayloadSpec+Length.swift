/// How long a payload's fields can come out, for `payload.size` to be checked against as the
/// scenario loads: a size below it would be missed at run time (and counted as `oversized`),
/// so the loader refuses it at once.
///
/// Every number has a bounded length (`JSONWriter`: at most 26 bytes, or fewer within a known
/// range and decimals), strings from a list of values are known, a uuid is 36 characters. What is
/// not known is a text a command sets (`command: set` on a text field without choices) and a
/// value with the device's id in it: `nil` then, and the run counts what comes out too long.
extension PayloadSpec {
    /// The most bytes a payload's fields take in its style, padding aside; `nil` when some field's
    /// length has no bound known before the run, and for the styles `size` does not apply to.
    package var longestLength: Int? {
        switch style {
        case .milkcocoa, .flat:
            let frame = PayloadFrame(style: style)
            return Self.longestMembers(fields).map { frame.opening.count + $0 + frame.closing.count }
        case .template:
            guard let template else { return Self.longestMembers(fields).map { $0 + 2 } }
            var total = 0
            for segment in template.segments {
                switch segment {
                case .text(let literal):
                    total += literal.utf8.count
                case .placeholder(let name):
                    if name == "index" {
                        total += 7
                    } else if let field = fields.first(where: { $0.name == name }), let longest = Self.longest(field, quoted: false) {
                        total += longest
                    } else {
                        return nil
                    }
                }
            }
            return total
        case .perField, .raw:
            return nil
        }
    }

    /// `"name":value` of each field, commas between: the inside of an object.
    static func longestMembers(_ fields: [FieldSpec]) -> Int? {
        var total = Swift.max(fields.count - 1, 0)
        for field in fields {
            guard let value = longest(field, quoted: true) else { return nil }
            total += encodedLength { JSONWriter.writeString(field.name, into: &$0) } + 1 + value
        }
        return total
    }

    /// The most bytes `field`'s value takes; `quoted` as in JSON, else bare as a template shows it.
    static func longest(_ field: FieldSpec, quoted: Bool) -> Int? {
        if let members = field.fields { return longestMembers(members).map { $0 + 2 } }
        guard let generator = field.generator else { return nil }
        let quotes = quoted ? 2 : 0
        // A dropout may write null in its place.
        let null = field.faults.dropout == nil ? 0 : 4
        if case .set? = field.command, generator.valueKind == .text, generator.options == nil { return nil }
        let value: Int?
        switch generator {
        case let constant as ConstantRecipe:
            if case .string(let text) = constant.value, text.contains("{") { return nil }
            value = longest(of: [constant.value], field, quoted: quoted)
        case let choice as ChoiceRecipe: value = longest(of: choice.values, field, quoted: quoted)
        case let sequence as SequenceRecipe: value = longest(of: sequence.values, field, quoted: quoted)
        case let column as CSVColumnRecipe: value = longest(of: column.values, field, quoted: quoted)
        case let dwell as DwellRecipe: value = longest(of: dwell.values, field, quoted: quoted)
        case is BoolRecipe: value = 5
        case is UUIDRecipe: value = 36 + quotes
        case let timestamp as TimestampRecipe:
            // `2026-11-29T12:00:00Z`, and a point and the fraction's digits.
            value = timestamp.unit == .iso8601 ? 20 + (field.decimals.map { $0 > 0 ? $0 + 1 : 0 } ?? 4) + quotes : longestNumber(field)
        case is BytesRecipe: return nil
        case let formula as FormulaRecipe:
            // A formula writes null when a field it reads drops out; its text may be a field's.
            switch formula.valueKind {
            case .bool: value = 5
            case .text, .timestamp: return nil
            case .number: value = Swift.max(longestNumber(field), 4)
            }
        default: value = longestNumber(field)
        }
        return value.map { Swift.max($0, null) }
    }

    /// The longest of `values` as the field writes them; numbers that the field's modifiers
    /// change, as any number.
    private static func longest(of values: [SignalValue], _ field: FieldSpec, quoted: Bool) -> Int {
        let modifies =
            (field.noise ?? 0) > 0 || field.min != nil || field.max != nil || field.faults.spike != nil || field.faults.drift != nil
        return values.map { value in
            switch value {
            case .number, .integer:
                if modifies || field.command != nil { return longestNumber(field) }
                return encodedLength { buffer in
                    if case .integer(let integer) = value {
                        JSONWriter.writeInteger(integer, decimals: field.decimals, into: &buffer)
                    } else if case .number(let number) = value {
                        JSONWriter.writeNumber(number, decimals: field.decimals, into: &buffer)
                    }
                }
            case .bool: return 5
            case .string(let text):
                return quoted ? encodedLength { JSONWriter.writeString(text, into: &$0) } : text.utf8.count
            case .utcTimestamp: return 26
            case .null: return 4
            }
        }.max() ?? 4
    }

    /// The most bytes a number of the field takes: within its range, where its range and
    /// decimals are known, else the most any number takes with its decimals.
    static func longestNumber(_ field: FieldSpec) -> Int {
        let decimals = field.decimals.map { Swift.min(Swift.max($0, 0), JSONWriter.maximumDecimals) }
        let fraction = decimals.map { $0 > 0 ? $0 + 1 : 0 } ?? 0
        // The exponent form of any Double, or 20 digits of an Int64 and its decimals; 26 for the
        // fixed point of a tiny number without decimals.
        let any = decimals == nil ? 26 : Swift.max(24, 20 + fraction)
        let natural = (field.noise ?? 0) > 0 ? (min: nil, max: nil) : field.commandBounds
        guard let decimals, field.faults.spike == nil, field.faults.drift == nil,
            let low = field.min ?? natural.min, let high = field.max ?? natural.max,
            low.isFinite, high.isFinite
        else { return any }
        let magnitude = Swift.max(Swift.abs(low), Swift.abs(high)).rounded(.up)
        guard magnitude < 1e15 else { return any }
        var digits = 1
        var rest = Int64(magnitude) / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        return Swift.min(any, (low < 0 ? 1 : 0) + digits + (decimals > 0 ? decimals + 1 : 0))
    }

    /// The bytes `write` writes.
    static func encodedLength(_ write: (inout PayloadBuffer) -> Void) -> Int {
        var buffer = PayloadBuffer(capacity: 64)
        write(&buffer)
        return buffer.count
    }
}
