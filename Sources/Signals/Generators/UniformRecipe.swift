/// `uniform: { min: 0, max: 1 }`: a value drawn uniformly from [min, max) for each sample.
package struct UniformRecipe: GeneratorRecipe {
    package static let key = "uniform"
    package var min: Double
    package var max: Double

    package init(parameters: any ParameterSource) throws(ParameterError) {
        try parameters.rejectShorthand(Self.key, expecting: "min and max")
        (min, max) = try parameters.requiredRange()
    }

    package func makeGenerator(context: GeneratorContext) -> any FieldGenerator {
        Generator(min: min, span: max - min, seed: context.fieldSeed)
    }

    struct Generator: FieldGenerator {
        let min: Double
        let span: Double
        let seed: Seed

        func value(at instant: PublishInstant) -> SignalValue {
            // Drawn from the sample's own stream: publishing more often repeats the latest sample
            // rather than inventing new ones, as a real sensor would.
            var random = seed.derive(instant.sample.index).generator()
            return .number(min + span * random.nextUnit())
        }
    }
}
