/// One payload field as the scenario declares it: a generator and the modifiers applied to its
/// numbers. Immutable and shared by every device of a group; `DeviceSignals` makes the per-device
/// state from it.
public struct FieldSpec: Sendable {
    public var name: String
    public var generator: any GeneratorRecipe
    /// Digits after the decimal point for numbers; `nil` keeps the generator's natural form.
    public var decimals: Int?
    /// Standard deviation of gaussian noise added to numbers.
    public var noise: Double?
    public var min: Double?
    public var max: Double?

    public init(name: String, generator: any GeneratorRecipe, decimals: Int? = nil,
                noise: Double? = nil, min: Double? = nil, max: Double? = nil) {
        self.name = name
        self.generator = generator
        self.decimals = decimals
        self.noise = noise
        self.min = min
        self.max = max
    }
}

public enum PayloadStyle: String, Sendable, CaseIterable {
    /// `{"params":{"Accel_X":0.0123,...}}`, the Milkcocoa push format.
    case milkcocoa
    /// `{"Accel_X":0.0123,...}`.
    case flat
}

public struct PayloadSpec: Sendable {
    public var style: PayloadStyle
    public var fields: [FieldSpec]

    public init(style: PayloadStyle = .milkcocoa, fields: [FieldSpec]) {
        self.style = style
        self.fields = fields
    }
}
