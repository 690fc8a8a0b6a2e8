/// `counter: 0` or `counter: { start: 100, step: 5 }`: `start + step × n` in the n-th publish
/// (n from 0). Integer start and step give integers; otherwise numbers.
///
/// With `peakAt` (`counter: { step: 1, peakAt: "13:00", quiet: 0.02 }`) each publish after the
/// first takes its step with the time of day's activity as its chance (`DailyShape`), drawn from
/// the seed: people through a door count up by day, hardly at night, and never down.
package struct CounterRecipe: GeneratorRecipe, FieldGenerator {
    package static let key = "counter"
    package var start: Double
    package var step: Double
    package var shape: DailyShape?

    package init(start: Double = 0, step: Double = 1, shape: DailyShape? = nil) {
        self.start = start
        self.step = step
        self.shape = shape
    }

    package init(parameters: any ParameterSource) throws(ParameterError) {
        if let shorthand = parameters.shorthand {
            guard let start = Double(shorthand), start.isFinite else {
                throw ParameterError(key: nil, "counter takes its start number, found '\(shorthand)'")
            }
            self.init(start: start)
            return
        }
        self.init(
            start: try parameters.finiteNumber("start") ?? 0,
            step: try parameters.finiteNumber("step") ?? 1,
            shape: try DailyShape.read(from: parameters))
    }

    /// Whether counting stays in exact integers (within ±2⁵³, where doubles hold every integer).
    var isIntegral: Bool {
        start.rounded(.towardZero) == start && step.rounded(.towardZero) == step
            && Swift.abs(start) < JSONWriter.exactIntegerLimit && Swift.abs(step) < JSONWriter.exactIntegerLimit
    }

    package func makeGenerator(context: GeneratorContext) -> any FieldGenerator {
        guard let shape else { return self }
        return Shaped(recipe: self, shape: shape, seed: context.fieldSeed.derive("daily"))
    }

    package func value(at instant: PublishInstant) -> SignalValue {
        value(steps: Int64(instant.index))
    }

    /// `start` and `steps` steps on.
    func value(steps: Int64) -> SignalValue {
        if isIntegral {
            // Wrapping arithmetic: a counter run long enough to overflow must not crash the daemon.
            return .integer(Int64(start) &+ Int64(step) &* steps)
        }
        return .number(start + step * Double(steps))
    }

    /// The steps taken so far: each publish's draw, from its index, against the activity at its
    /// time. Read once a publish, as every field is.
    final class Shaped: FieldGenerator {
        let recipe: CounterRecipe
        let shape: DailyShape
        let seed: Seed
        private var steps: Int64 = 0

        init(recipe: CounterRecipe, shape: DailyShape, seed: Seed) {
            self.recipe = recipe
            self.shape = shape
            self.seed = seed
        }

        func value(at instant: PublishInstant) -> SignalValue {
            if instant.index > 0 {
                var random = seed.derive(instant.index).generator()
                if random.nextUnit() < shape.activity(wallClock: instant.wallClock) { steps &+= 1 }
            }
            return recipe.value(steps: steps)
        }
    }
}
