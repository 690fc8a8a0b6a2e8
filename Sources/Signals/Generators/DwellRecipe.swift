/// `dwell: { values: [false, true], min: [2m, 5s], max: [30m, 60s] }`: a state that holds for a
/// while and then gives way to the next, in order and round again: a door closed for 2 to 30
/// minutes, then open for 5 to 60 seconds. Each stay is drawn between its state's `min` and
/// `max` from the field's seed, in the device's own time, so a door does not flicker at every
/// publish as a `bool` does, and the same seed gives the same door.
///
/// Each device starts in a state drawn in proportion to the states' mean stays, part way
/// through it, so that a fleet of doors is not in step.
///
/// With `peakAt` (`peakAt: "19:00", quiet: 0.05`) the first value is the state of rest: each of
/// its stays is drawn as before and lasts 1 / activity times as long, the activity of the time
/// of day it begins at (`DailyShape`). A door closed for 2 to 30 minutes in the evening then
/// stays closed for hours at night; the other states' stays are as given.
package struct DwellRecipe: GeneratorRecipe {
    package static let key = "dwell"
    package var values: [SignalValue]
    /// Seconds, one per value.
    package var minimum: [Double]
    package var maximum: [Double]
    package var shape: DailyShape?

    package init(values: [SignalValue], minimum: [Double], maximum: [Double], shape: DailyShape? = nil) {
        self.values = values
        self.minimum = minimum
        self.maximum = maximum
        self.shape = shape
    }

    package init(parameters: any ParameterSource) throws(ParameterError) {
        try parameters.rejectShorthand(Self.key, expecting: "values, and min and max: the shortest and longest stay in each")
        let values = try parameters.requiredValues("values")
        guard values.count >= 2 else { throw ParameterError(key: "values", "values must name at least two states to go between") }
        var stays: [[Double]] = []
        for key in ["min", "max"] {
            guard let durations = try parameters.durations(key) else {
                throw ParameterError(key: key, "\(key) is required: a list of durations, one per value, such as [2m, 5s]")
            }
            guard durations.count == values.count else {
                throw ParameterError(key: key, "\(key) must have one duration per value: \(values.count), found \(durations.count)")
            }
            guard durations.allSatisfy({ $0 > 0 && $0.isFinite }) else {
                throw ParameterError(key: key, "\(key) must be durations above zero")
            }
            stays.append(durations)
        }
        if let index = stays[0].indices.first(where: { stays[0][$0] > stays[1][$0] }) {
            throw ParameterError(key: "max", "max must be at least min for each value: not for value \(index + 1)")
        }
        self.init(values: values, minimum: stays[0], maximum: stays[1], shape: try DailyShape.read(from: parameters))
    }

    package var valueKind: ValueKind { .of(values) }
    package var options: [SignalValue]? { values }

    package func makeGenerator(context: GeneratorContext) -> any FieldGenerator {
        Generator(model: Model(recipe: self, seed: context.fieldSeed.derive("dwell")))
    }

    /// The state and when it gives way, moved on through every change up to each sample's time.
    /// Walked when a value is read rather than as a `SampledModel`: a shaped stay needs the wall
    /// clock, which only a publish knows. The walk depends on the time alone, so the values are
    /// the same either way.
    final class Model {
        let recipe: DwellRecipe
        let seed: Seed
        private(set) var state = 0
        private var changesAt = 0.0
        private var changes = 0
        private var started = false

        init(recipe: DwellRecipe, seed: Seed) {
            self.recipe = recipe
            self.seed = seed
        }

        /// Moves on to `time`, the device's seconds; `wallOffset` is the wall clock at its 0.
        func advance(to time: Double, wallOffset: Double) {
            if !started {
                started = true
                var random = seed.derive("start").generator()
                let means = recipe.minimum.indices.map { (recipe.minimum[$0] + recipe.maximum[$0]) / 2 }
                var draw = random.nextUnit() * means.reduce(0, +)
                state =
                    means.indices.first { index in
                        draw -= means[index]
                        return draw < 0
                    } ?? means.count - 1
                changesAt = stay(in: state, change: 0, from: wallOffset) * random.nextUnit()
            }
            while time >= changesAt {
                changes += 1
                state = (state + 1) % recipe.values.count
                changesAt += stay(in: state, change: changes, from: wallOffset + changesAt)
            }
        }

        /// How long the `change`th stay, in `state`, lasts when it begins at `wallClock`.
        private func stay(in state: Int, change: Int, from wallClock: Double) -> Double {
            var random = seed.derive(change).generator()
            let drawn = recipe.minimum[state] + random.nextUnit() * (recipe.maximum[state] - recipe.minimum[state])
            guard state == 0, let shape = recipe.shape else { return drawn }
            return drawn / shape.activity(wallClock: wallClock)
        }
    }

    struct Generator: FieldGenerator {
        let model: Model

        func value(at instant: PublishInstant) -> SignalValue {
            model.advance(to: instant.sample.time, wallOffset: instant.sampleWallClock - instant.sample.time)
            return model.recipe.values[model.state]
        }
    }
}
