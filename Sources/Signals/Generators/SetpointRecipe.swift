/// `setpoint: { of: temperature }`: where another field's setpoint stands (its
/// `command: { setpoint: 0.5/min }`): the target the last command gave it, and before any its
/// centre (a `randomWalk`'s mean, a `sine`'s middle). A thermostat reports the temperature it
/// was told beside the one it measures, as real ones do, so a dashboard's slider stays where it
/// was set while the room drifts there.
package struct SetpointRecipe: GeneratorRecipe {
    package static let key = "setpoint"
    /// The field whose setpoint it reports: a name, or a dotted path into a group.
    package var source: String

    package init(source: String) {
        self.source = source
    }

    package init(parameters: any ParameterSource) throws(ParameterError) {
        try parameters.rejectShorthand(Self.key, expecting: "of: the field whose setpoint it reports, such as temperature")
        guard let source = try parameters.string("of"), !source.isEmpty else {
            throw ParameterError(key: "of", "of is required: the field whose setpoint it reports, such as temperature")
        }
        self.init(source: source)
    }

    package func makeGenerator(context: GeneratorContext) -> any FieldGenerator {
        Target(source: source)
    }

    /// The setpoint of the field `DeviceSignals` links it to; `null` before it is linked (the
    /// loader refuses a field it cannot find).
    final class Target: FieldGenerator {
        let source: String
        weak var field: FieldEncoder?

        init(source: String) {
            self.source = source
        }

        func value(at instant: PublishInstant) -> SignalValue {
            field?.setpoint.map(SignalValue.number) ?? .null
        }
    }
}
