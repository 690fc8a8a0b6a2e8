/// What kind of value a generator makes, as a dashboard that discovers the field needs to know
/// before any arrives: Home Assistant makes a number a `sensor`, a boolean a `binary_sensor`.
package enum ValueKind: Sendable, Equatable {
    case number
    case bool
    case text
    /// The time of the publish: when it was made, not a reading.
    case timestamp

    /// The kind every value of a list shares: numbers (integers too), booleans, else text.
    package static func of(_ values: [SignalValue]) -> ValueKind {
        if values.allSatisfy({ if case .bool = $0 { true } else { false } }) { return .bool }
        if values.allSatisfy({ $0.isNumeric }) { return .number }
        return .text
    }
}

extension SignalValue {
    var isNumeric: Bool {
        switch self {
        case .number, .integer: true
        default: false
        }
    }
}

extension GeneratorRecipe {
    /// Numbers, unless the generator says otherwise.
    package var valueKind: ValueKind { .number }
    package var options: [SignalValue]? { nil }
    package var centre: Double? { nil }
    package var limits: (min: Double?, max: Double?) { (nil, nil) }
}

extension RandomWalkRecipe {
    package var centre: Double? { mean }
    package var limits: (min: Double?, max: Double?) { (min, max) }
}

extension SineRecipe {
    package var centre: Double? { (min + max) / 2 }
    package var limits: (min: Double?, max: Double?) { (min, max) }
}

extension FieldSpec {
    /// What a command's number for the field must keep to, and a setpoint's value too: its own
    /// `min` and `max`, else its generator's. What a dashboard that sets it is told as well.
    package var commandBounds: (min: Double?, max: Double?) {
        (min ?? generator?.limits.min, max ?? generator?.limits.max)
    }
}

extension BoolRecipe {
    package var valueKind: ValueKind { .bool }
}

extension UUIDRecipe {
    package var valueKind: ValueKind { .text }
}

extension TimestampRecipe {
    package var valueKind: ValueKind { .timestamp }
}

extension ChoiceRecipe {
    package var valueKind: ValueKind { .of(values) }
    package var options: [SignalValue]? { values }
}

extension SequenceRecipe {
    package var valueKind: ValueKind { .of(values) }
}

extension CSVColumnRecipe {
    package var valueKind: ValueKind { .of(values) }
}

extension ConstantRecipe {
    package var valueKind: ValueKind { .of([value]) }
}
