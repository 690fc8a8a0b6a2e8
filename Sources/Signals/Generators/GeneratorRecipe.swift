/// A generator as a scenario declares it: its parsed, validated parameters. Immutable; each device
/// gets its own running state from it (see `DeviceSignals`).
///
/// Adding a generator is one file with a type conforming to this protocol, plus its line in
/// `Generators.all`.
package protocol GeneratorRecipe: Sendable {
    /// The key that names this generator in a field (`sine`, `accelerometer`).
    static var key: String { get }
    /// Reads and validates the parameters; throws naming the offending key.
    init(parameters: any ParameterSource) throws(ParameterError)
    /// This generator's state for one device and field (`context.fieldName`). Called once per
    /// device, off the hot path.
    func makeGenerator(context: GeneratorContext) -> any FieldGenerator
    /// What kind of value it makes (`ValueKind`); numbers unless it says otherwise.
    var valueKind: ValueKind { get }
    /// The values it chooses among, for a command that selects one; `nil` for any.
    var options: [SignalValue]? { get }
    /// Where its values centre (a `randomWalk`'s mean, a `sine`'s middle): what a setpoint moves;
    /// `nil` for a generator with none.
    var centre: Double? { get }
    /// The bounds its values keep to (a `randomWalk`'s `min` and `max`, a `sine`'s), for a
    /// command's value to keep to as well; `nil` where there is none.
    var limits: (min: Double?, max: Double?) { get }
}

package enum Generators {
    /// Every generator a scenario may name.
    package static let all: [any GeneratorRecipe.Type] = [
        ConstantRecipe.self,
        CounterRecipe.self,
        UniformRecipe.self,
        GaussianRecipe.self,
        SineRecipe.self,
        RandomWalkRecipe.self,
        ChoiceRecipe.self,
        DwellRecipe.self,
        IntegralRecipe.self,
        SetpointRecipe.self,
        BoolRecipe.self,
        SequenceRecipe.self,
        TimestampRecipe.self,
        UUIDRecipe.self,
        CSVColumnRecipe.self,
        AccelerometerRecipe.self,
        LocationRecipe.self,
        BytesRecipe.self,
        FormulaRecipe.self,
    ]

    package static var keys: [String] { all.map { $0.key } }

    /// The recipe for `key` built from `parameters`, or `nil` when no generator has that key.
    package static func recipe(named key: String, parameters: any ParameterSource) throws(ParameterError) -> (any GeneratorRecipe)? {
        guard let type = all.first(where: { $0.key == key }) else { return nil }
        return try type.init(parameters: parameters)
    }
}
