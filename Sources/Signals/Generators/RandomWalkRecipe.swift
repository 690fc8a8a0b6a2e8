/// `randomWalk: { start: 20, step: 0.1, min: 15, max: 30, meanReversion: 0.05, mean: 21 }`: each
/// sample moves from the last by a gaussian step of σ `step`, pulled a fraction `meanReversion`
/// (0…1, default 0) of the way back toward `mean` (default `start`). The walk reflects off `min`
/// and `max` (either, both or neither), so it stays within them without sticking to a bound.
///
/// `start` defaults to `mean`, else the middle of `min` and `max`, else 0. Unless the scenario
/// gives `start`, each device starts elsewhere near it, drawn from the field's seed, so that a
/// group's lines do not begin as one (see `spread`). `step` is required.
///
/// The mean itself can follow a wave: `amplitude: 3, period: 24h` swings it by ±3 over a day from
/// the device's start, and `peakAt: "14:00"` (with optional `timezone`) puts its top at a
/// wall-clock time, as for `sine` (see `WallClockPeak`): a room that warms toward the afternoon
/// and wanders on its way there. `phase` shifts the wave as for `sine`, and `phase: random` gives
/// each device its own.
///
/// One `Model` per device and field holds the walk: each value depends on the one before.
package struct RandomWalkRecipe: GeneratorRecipe {
    package static let key = "randomWalk"
    package var start: Double
    /// σ of a sample's step.
    package var step: Double
    package var min: Double?
    package var max: Double?
    /// The fraction of the distance to the mean recovered each sample, 0…1.
    package var meanReversion: Double
    package var mean: Double
    /// Half the swing of the mean's wave; 0 for a fixed mean.
    package var amplitude: Double
    /// Seconds; the mean's wave period.
    package var period: Double
    package var peak: WallClockPeak?
    /// The mean's wave's phase, as `sine` reads it.
    package var phase = WavePhase()
    /// Whether `start` was given: then every device starts there.
    package var pinsStart = true

    package init(
        start: Double, step: Double, min: Double? = nil, max: Double? = nil, meanReversion: Double = 0,
        mean: Double? = nil, amplitude: Double = 0, period: Double = 86_400, peak: WallClockPeak? = nil
    ) {
        self.start = start
        self.step = step
        self.min = min
        self.max = max
        self.meanReversion = meanReversion
        self.mean = mean ?? start
        self.amplitude = amplitude
        self.period = period
        self.peak = peak
    }

    package init(parameters: any ParameterSource) throws(ParameterError) {
        try parameters.rejectShorthand(Self.key, expecting: "start, step, min, max and meanReversion")
        guard let step = try parameters.finiteNumber("step") else {
            throw ParameterError(key: "step", "step is required: the standard deviation of each sample's step")
        }
        guard step >= 0 else { throw ParameterError(key: "step", "step must not be negative") }
        let min = try parameters.finiteNumber("min")
        let max = try parameters.finiteNumber("max")
        if let min, let max, min >= max {
            throw ParameterError(key: "max", "max must be greater than min (\(min))")
        }
        let mean = try parameters.finiteNumber("mean")
        let middle = min.flatMap { min in max.map { (min + $0) / 2 } }
        let pinned = try parameters.finiteNumber("start")
        let start = pinned ?? mean ?? middle ?? min ?? max ?? 0
        if let min, start < min { throw ParameterError(key: "start", "start must be at least min (\(min))") }
        if let max, start > max { throw ParameterError(key: "start", "start must be at most max (\(max))") }
        let reversion = try parameters.probability("meanReversion") ?? 0

        let amplitude = try parameters.finiteNumber("amplitude")
        let period = try parameters.duration("period")
        guard let amplitude else {
            if period != nil { throw ParameterError(key: "period", "period shapes the mean's wave: give amplitude too") }
            if try parameters.string("peakAt") != nil {
                throw ParameterError(key: "peakAt", "peakAt shapes the mean's wave: give amplitude too")
            }
            if WavePhase.isGiven(in: parameters) { throw ParameterError(key: "phase", "phase shifts the mean's wave: give amplitude too") }
            _ = try WallClockPeak.read(from: parameters, period: 86_400)
            self.init(start: start, step: step, min: min, max: max, meanReversion: reversion, mean: mean)
            pinsStart = pinned != nil
            return
        }
        guard amplitude >= 0 else { throw ParameterError(key: "amplitude", "amplitude must not be negative") }
        let wavePeriod = period ?? 86_400
        guard wavePeriod > 0, wavePeriod.isFinite else {
            throw ParameterError(key: "period", "period must be greater than zero")
        }
        let peak = try WallClockPeak.read(from: parameters, period: wavePeriod)
        self.init(
            start: start, step: step, min: min, max: max, meanReversion: reversion, mean: mean,
            amplitude: amplitude, period: wavePeriod, peak: peak)
        phase = try WavePhase.read(from: parameters, period: wavePeriod, peak: peak)
        pinsStart = pinned != nil
    }

    package func makeGenerator(context: GeneratorContext) -> any FieldGenerator {
        var recipe = self
        recipe.phase = phase.forDevice(context.fieldSeed)
        var initial = start - mean
        if !pinsStart {
            var random = context.fieldSeed.derive("start").generator()
            initial = bounded(start + spread(random.nextGaussian(), random.nextUnit())) - mean
        }
        let model = Model(seed: context.fieldSeed.derive("walk"), initial: initial, step: step, retained: 1 - meanReversion)
        context.register(model)
        return Generator(model: model, recipe: recipe)
    }

    /// How far from `start` a device begins when the scenario does not pin it, from a gaussian
    /// and a uniform draw: the walk's own spread in the long run (σ `step` / √(1 − (1 − r)²))
    /// with mean reversion r; else anywhere in the middle half of `min`…`max`; else ±10 steps σ.
    func spread(_ gaussian: Double, _ unit: Double) -> Double {
        if meanReversion > 0 {
            let retained = 1 - meanReversion
            return gaussian * step / (1 - retained * retained).squareRoot()
        }
        if let min, let max { return (unit - 0.5) * (max - min) / 2 + (min + max) / 2 - start }
        return gaussian * step * 10
    }

    /// The walk as a deviation from the (possibly moving) mean: it reverts toward 0. Without
    /// reversion that is a free walk from `start`, and folding it into the bounds on output is
    /// the same in law as reflecting it at every step, without having to know the bounds here.
    final class Model: SampledModel {
        private(set) var deviation: Double
        let initial: Double
        let step: Double
        let retained: Double
        let seed: Seed
        private var started = false

        init(seed: Seed, initial: Double, step: Double, retained: Double) {
            self.seed = seed
            self.initial = initial
            self.step = step
            self.retained = retained
            deviation = initial
        }

        func advance(to sample: SampleInstant) {
            guard started else {
                // The first sample is the start itself.
                started = true
                deviation = initial
                return
            }
            var random = seed.derive(sample.index).generator()
            deviation = retained * deviation + step * random.nextGaussian()
        }
    }

    struct Generator: FieldGenerator {
        let model: Model
        let recipe: RandomWalkRecipe

        func value(at instant: PublishInstant) -> SignalValue {
            .number(recipe.bounded(recipe.mean(at: instant) + model.deviation))
        }
    }

    /// The mean the walk reverts to at the publish's latest sample.
    func mean(at instant: PublishInstant) -> Double {
        guard amplitude > 0 else { return mean }
        var cycles =
            (peak.map { $0.fraction(wallClock: instant.sampleWallClock, period: period) }
                ?? instant.sample.time / period) + phase.fraction
        cycles -= cycles.rounded(.down)
        return mean + amplitude * Math.sine(2 * Double.pi * cycles)
    }

    /// `value` reflected into the bounds: past `max` by 1 is 1 below it.
    func bounded(_ value: Double) -> Double {
        switch (min, max) {
        case (let min?, let max?):
            let span = max - min
            let folded = WallClockPeak.reduced(value - min, 2 * span)
            return min + (folded > span ? 2 * span - folded : folded)
        case (let min?, nil):
            return value < min ? 2 * min - value : value
        case (nil, let max?):
            return value > max ? 2 * max - value : value
        case (nil, nil):
            return value
        }
    }
}
