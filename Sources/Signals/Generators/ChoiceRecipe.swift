/// `choice: { values: [idle, busy, error], weights: [70, 25, 5] }`: one of the values, drawn for
/// each sample, with chances in proportion to the weights (equal without them). Values keep their
/// type: `[1, 2.5, on, true]` gives numbers, a string and a boolean.
package struct ChoiceRecipe: GeneratorRecipe {
    package static let key = "choice"
    package var values: [SignalValue]
    /// One non-negative weight per value, not all zero.
    package var weights: [Double]

    package init(values: [SignalValue], weights: [Double]? = nil) {
        self.values = values
        self.weights = weights ?? Array(repeating: 1, count: values.count)
    }

    package init(parameters: any ParameterSource) throws(ParameterError) {
        try parameters.rejectShorthand(Self.key, expecting: "values (a list) and optional weights")
        let values = try parameters.requiredValues("values")
        guard let weights = try parameters.numbers("weights") else {
            self.init(values: values)
            return
        }
        guard weights.count == values.count else {
            throw ParameterError(key: "weights", "weights must have one weight per value: \(values.count), found \(weights.count)")
        }
        guard weights.allSatisfy({ $0 >= 0 }) else {
            throw ParameterError(key: "weights", "weights must not be negative")
        }
        guard weights.contains(where: { $0 > 0 }), weights.reduce(0, +).isFinite else {
            throw ParameterError(key: "weights", "weights must not all be zero")
        }
        self.init(values: values, weights: weights)
    }

    package func makeGenerator(context: GeneratorContext) -> any FieldGenerator {
        var cumulative: [Double] = []
        cumulative.reserveCapacity(weights.count)
        var total = 0.0
        for weight in weights {
            total += weight
            cumulative.append(total)
        }
        return Generator(values: values, thresholds: cumulative.map { $0 / total }, seed: context.fieldSeed)
    }

    struct Generator: FieldGenerator {
        let values: [SignalValue]
        /// The running sums of the weights over their total: value i is drawn for a unit draw
        /// below `thresholds[i]` and at or above the one before.
        let thresholds: [Double]
        let seed: Seed

        func value(at instant: PublishInstant) -> SignalValue {
            var random = seed.derive(instant.sample.index).generator()
            let draw = random.nextUnit()
            // Binary search for the first threshold above the draw; the last is 1 (or within
            // rounding of it), so fall back to the last value with a weight.
            var low = 0
            var high = thresholds.count - 1
            while low < high {
                let middle = (low + high) / 2
                if draw < thresholds[middle] { high = middle } else { low = middle + 1 }
            }
            return values[low]
        }
    }
}
