/// One payload field as the scenario declares it: a generator and the modifiers applied to its
/// numbers, or a group of fields written as a nested object. Immutable and shared by every device
/// of a group; `DeviceSignals` makes the per-device state from it.
package struct FieldSpec: Sendable {
    /// What makes the field's value.
    package enum Content: Sendable {
        case generator(any GeneratorRecipe)
        /// A nested object of these fields, in this order.
        case group([FieldSpec])
    }

    package var name: String
    package var content: Content
    /// Digits after the decimal point for numbers; `nil` keeps the generator's natural form.
    package var decimals: Int?
    /// Standard deviation of gaussian noise added to numbers.
    package var noise: Double?
    package var min: Double?
    package var max: Double?
    /// Sensor faults injected into the field's values.
    package var faults: FieldFaults
    /// What a dashboard that discovers the field shows of it: its unit and classes.
    package var entity = EntityHints()
    /// What a command may do to it; `nil` for a field no command touches.
    package var command: FieldCommand?

    /// A field whose value comes from `generator`.
    package init(
        name: String, generator: any GeneratorRecipe, decimals: Int? = nil,
        noise: Double? = nil, min: Double? = nil, max: Double? = nil,
        faults: FieldFaults = FieldFaults()
    ) {
        self.name = name
        self.content = .generator(generator)
        self.decimals = decimals
        self.noise = noise
        self.min = min
        self.max = max
        self.faults = faults
    }

    /// A field whose value is an object of `fields`: `"location":{"lat":…,"lon":…}`.
    package init(name: String, fields: [FieldSpec]) {
        self.name = name
        self.content = .group(fields)
        self.faults = FieldFaults()
    }

    /// The generator of a field made by one; `nil` for a group.
    package var generator: (any GeneratorRecipe)? {
        if case .generator(let generator) = content { return generator }
        return nil
    }

    /// The members of a group; `nil` for a field made by a generator.
    package var fields: [FieldSpec]? {
        if case .group(let fields) = content { return fields }
        return nil
    }
}
