/// `gaussian: { mean: 20, stddev: 0.5 }`: a value drawn from a normal distribution for each
/// sample. The shorthand `gaussian: 20` is the mean, with a standard deviation of 1. `mean`
/// defaults to 0 and `stddev` to 1; a `stddev` of 0 gives the mean every time.
package struct GaussianRecipe: GeneratorRecipe {
    package static let key = "gaussian"
    package var mean: Double
    package var standardDeviation: Double

    package init(mean: Double = 0, standardDeviation: Double = 1) {
        self.mean = mean
        self.standardDeviation = standardDeviation
    }

    package init(parameters: any ParameterSource) throws(ParameterError) {
        if let shorthand = parameters.shorthand {
            guard let mean = Double(shorthand), mean.isFinite else {
                throw ParameterError(key: nil, "gaussian takes its mean, a number, found '\(shorthand)'")
            }
            self.init(mean: mean)
            return
        }
        let mean = try parameters.finiteNumber("mean") ?? 0
        let deviation = try parameters.finiteNumber("stddev") ?? 1
        guard deviation >= 0 else { throw ParameterError(key: "stddev", "stddev must not be negative") }
        self.init(mean: mean, standardDeviation: deviation)
    }

    package func makeGenerator(context: GeneratorContext) -> any FieldGenerator {
        Generator(mean: mean, standardDeviation: standardDeviation, seed: context.fieldSeed)
    }

    struct Generator: FieldGenerator {
        let mean: Double
        let standardDeviation: Double
        let seed: Seed

        func value(at instant: PublishInstant) -> SignalValue {
            // The sample's own stream, as `uniform` does: repeated publishes repeat the sample.
            var random = seed.derive(instant.sample.index).generator()
            return .number(mean + standardDeviation * random.nextGaussian())
        }
    }
}
