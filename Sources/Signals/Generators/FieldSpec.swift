/// One payload field as the scenario declares it: a generator and the modifiers applied to its
/// numbers, or a group of fields written as a nested object. Immutable and shared by every device
/// of a group; `DeviceSignals` makes the per-device state from it.
public struct FieldSpec: Sendable {
    /// What makes the field's value.
    public enum Content: Sendable {
        case generator(any GeneratorRecipe)
        /// A nested object of these fields, in this order.
        case group([FieldSpec])
    }

    public var name: String
    public var content: Content
    /// Digits after the decimal point for numbers; `nil` keeps the generator's natural form.
    public var decimals: Int?
    /// Standard deviation of gaussian noise added to numbers.
    public var noise: Double?
    public var min: Double?
    public var max: Double?
    /// Sensor faults injected into the field's values.
    public var faults: FieldFaults

    /// A field whose value comes from `generator`.
    public init(
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
    public init(name: String, fields: [FieldSpec]) {
        self.name = name
        self.content = .group(fields)
        self.faults = FieldFaults()
    }

    /// The generator of a field made by one; `nil` for a group.
    public var generator: (any GeneratorRecipe)? {
        if case .generator(let generator) = content { return generator }
        return nil
    }

    /// The members of a group; `nil` for a field made by a generator.
    public var fields: [FieldSpec]? {
        if case .group(let fields) = content { return fields }
        return nil
    }
}

public enum PayloadStyle: String, Sendable, CaseIterable {
    /// `{"params":{"Accel_X":0.0123,...}}`, the Milkcocoa push format.
    case milkcocoa
    /// `{"Accel_X":0.0123,...}`.
    case flat
    /// A text with `{{field}}` placeholders (`PayloadSpec.template`): CSV lines, InfluxDB line
    /// protocol and the like.
    case template
}

public struct PayloadSpec: Sendable {
    public var style: PayloadStyle
    public var fields: [FieldSpec]
    /// The text of the `template` style; ignored by the others. A `template` payload without one
    /// is written as the flat style.
    public var template: PayloadTemplate?

    public init(style: PayloadStyle = .milkcocoa, fields: [FieldSpec], template: PayloadTemplate? = nil) {
        self.style = style
        self.fields = fields
        self.template = template
    }
}
