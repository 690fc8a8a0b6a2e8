/// `integral: { of: power, per: 1h, scale: 0.001, start: 1200, spread: 3600 }`: a running total of
/// another field of the device, as an energy meter's kWh is of its power in W: at each publish
/// the total grows by the value the `of` field published last, times the time since that
/// publish, in units of `per` (default 1h), times `scale` (default 1; 0.001 turns W into kW).
/// Monotonic while the field is not negative.
///
/// It starts at `start` (default 0), plus a part of `spread` drawn per device from the seed, so
/// that a fleet of meters does not read the same and a meter does not start from nothing.
package struct IntegralRecipe: GeneratorRecipe {
    package static let key = "integral"
    /// The field it integrates: a name, or a dotted path into a group (`supply.power`).
    package var source: String
    /// Seconds per unit of time of the total.
    package var per: Double
    package var scale: Double
    package var start: Double
    package var spread: Double

    package init(source: String, per: Double = 3600, scale: Double = 1, start: Double = 0, spread: Double = 0) {
        self.source = source
        self.per = per
        self.scale = scale
        self.start = start
        self.spread = spread
    }

    package init(parameters: any ParameterSource) throws(ParameterError) {
        try parameters.rejectShorthand(Self.key, expecting: "of (the field to integrate), and per, scale, start and spread")
        guard let source = try parameters.string("of"), !source.isEmpty else {
            throw ParameterError(key: "of", "of is required: the field whose values add up, such as power")
        }
        let per = try parameters.duration("per") ?? 3600
        guard per > 0, per.isFinite else { throw ParameterError(key: "per", "per must be a duration above zero, such as 1h") }
        let spread = try parameters.finiteNumber("spread") ?? 0
        guard spread >= 0 else { throw ParameterError(key: "spread", "spread must not be negative") }
        self.init(
            source: source, per: per, scale: try parameters.finiteNumber("scale") ?? 1, start: try parameters.finiteNumber("start") ?? 0,
            spread: spread)
    }

    package func makeGenerator(context: GeneratorContext) -> any FieldGenerator {
        var random = context.fieldSeed.derive("start").generator()
        return Total(recipe: self, total: start + spread * random.nextUnit())
    }

    /// The total so far; `DeviceSignals` hands it each publish's value of the source field.
    final class Total: FieldGenerator {
        let recipe: IntegralRecipe
        private(set) var total: Double
        /// The source's last published value and when, in the device's seconds.
        private var last: (value: Double, at: Double)?

        init(recipe: IntegralRecipe, total: Double) {
            self.recipe = recipe
            self.total = total
        }

        func value(at instant: PublishInstant) -> SignalValue {
            if let last, instant.elapsed > last.at {
                total += last.value * (instant.elapsed - last.at) / recipe.per * recipe.scale
                self.last = (last.value, instant.elapsed)
            }
            return .number(total)
        }

        /// The source field published `value` at `elapsed`: what the total grows by until the next.
        func published(_ value: Double?, at elapsed: Double) {
            if let value, value.isFinite { last = (value, elapsed) } else { last = nil }
        }
    }
}
