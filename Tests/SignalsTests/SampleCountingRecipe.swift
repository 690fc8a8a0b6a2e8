import Signals

/// A generator whose value is how many samples its model has taken and the last index: it makes
/// the catch-up visible, which the real models hide by being functions of the sample index.
struct SampleCountingRecipe: GeneratorRecipe {
    static let key = "sampleCount"

    var dependsOnHistory = true

    init(dependsOnHistory: Bool = true) {
        self.dependsOnHistory = dependsOnHistory
    }

    init(parameters: any ParameterSource) throws(ParameterError) {}

    func makeGenerator(context: GeneratorContext) -> any FieldGenerator {
        let model = Model(dependsOnHistory: dependsOnHistory)
        context.register(model)
        return Generator(model: model)
    }

    final class Model: SampledModel {
        var taken = 0
        var lastIndex = -1
        let dependsOnHistory: Bool

        init(dependsOnHistory: Bool) {
            self.dependsOnHistory = dependsOnHistory
        }

        func advance(to sample: SampleInstant) {
            precondition(sample.index > lastIndex, "samples must advance in order")
            taken += 1
            lastIndex = sample.index
        }
    }

    struct Generator: FieldGenerator {
        let model: Model

        func value(at instant: PublishInstant) -> SignalValue {
            .string("\(model.taken)/\(model.lastIndex)")
        }
    }
}
