/// `bool: 0.2` or `bool: { probability: 0.2 }`: `true` with that probability for each sample,
/// else `false`. The probability defaults to 0.5.
///
/// With `peakAt` (`bool: { probability: 0.3, peakAt: "18:00", quiet: 0.05 }`) the probability
/// is the peak's, scaled by the time of day's activity (`DailyShape`): motion in the evening,
/// hardly any at night.
package struct BoolRecipe: GeneratorRecipe {
    package static let key = "bool"
    package var probability: Double
    package var shape: DailyShape?

    package init(probability: Double = 0.5, shape: DailyShape? = nil) {
        self.probability = probability
        self.shape = shape
    }

    package init(parameters: any ParameterSource) throws(ParameterError) {
        if let shorthand = parameters.shorthand {
            guard let probability = Double(shorthand), (0...1).contains(probability) else {
                throw ParameterError(key: nil, "bool takes its probability of true, from 0 to 1, found '\(shorthand)'")
            }
            self.init(probability: probability)
            return
        }
        self.init(probability: try parameters.probability("probability") ?? 0.5, shape: try DailyShape.read(from: parameters))
    }

    package func makeGenerator(context: GeneratorContext) -> any FieldGenerator {
        Generator(probability: probability, shape: shape, seed: context.fieldSeed)
    }

    struct Generator: FieldGenerator {
        let probability: Double
        let shape: DailyShape?
        let seed: Seed

        func value(at instant: PublishInstant) -> SignalValue {
            var random = seed.derive(instant.sample.index).generator()
            let chance = shape.map { probability * $0.activity(wallClock: instant.sampleWallClock) } ?? probability
            // nextUnit is below 1, so probability 1 is always true and 0 never.
            return .bool(random.nextUnit() < chance)
        }
    }
}
