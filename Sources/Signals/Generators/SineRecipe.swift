/// `sine: { min: 18, max: 26, period: 24h, phase: 0.25 }`: a wave between min and max, as a
/// function of the sample's time. At phase 0 it starts at the midpoint, rising.
///
/// `phase` is a bare number for a fraction of the period (`0.25`, a quarter cycle), a duration
/// with a unit (`6h`) for a time offset, or `random` for a fraction drawn per device from the
/// field's seed, so that a fleet does not rise and fall in lock-step.
///
/// With `peakAt` the wave follows the wall clock instead of the time since the device connected:
/// `sine: { min: 18, max: 26, period: 24h, peakAt: "14:00", timezone: "+01:00" }` is warmest at
/// 14:00 local time every day, and `period: 7d, peakAt: "Wed 14:00"` makes a weekly shape (see
/// `WallClockPeak`). A `phase` then shifts the wave from that peak.
package struct SineRecipe: GeneratorRecipe, FieldGenerator {
    package static let key = "sine"
    package var min: Double
    package var max: Double
    /// Seconds.
    package var period: Double
    /// Fraction of a cycle.
    package var phase: Double
    /// Whether each device adds its own random fraction in [0, 1) to `phase`.
    package var randomPhase: Bool
    /// When set, the wave peaks at this wall-clock time and ignores the device's elapsed time.
    package var peak: WallClockPeak?

    package init(
        min: Double, max: Double, period: Double, phase: Double = 0, randomPhase: Bool = false,
        peak: WallClockPeak? = nil
    ) {
        self.min = min
        self.max = max
        self.period = period
        self.phase = phase
        self.randomPhase = randomPhase
        self.peak = peak
    }

    package init(parameters: any ParameterSource) throws(ParameterError) {
        try parameters.rejectShorthand(Self.key, expecting: "min, max and period")
        let (min, max) = try parameters.requiredRange()
        guard let period = try parameters.duration("period") else {
            throw ParameterError(key: "period", "period is required")
        }
        guard period > 0, period.isFinite else {
            throw ParameterError(key: "period", "period must be greater than zero")
        }
        var phase = 0.0
        var randomPhase = false
        // A bare number reads as a number; a duration with a unit does not, so fall back to it.
        if let fraction = try? parameters.number("phase") {
            phase = fraction
        } else if (try? parameters.string("phase")) == "random" {
            randomPhase = true
        } else if let offset = try parameters.duration("phase") {
            phase = offset / period
        }
        guard phase.isFinite else { throw ParameterError(key: "phase", "phase must be finite") }
        let peak = try WallClockPeak.read(from: parameters, period: period)
        self.init(min: min, max: max, period: period, phase: phase, randomPhase: randomPhase, peak: peak)
    }

    package func makeGenerator(context: GeneratorContext) -> any FieldGenerator {
        guard randomPhase else { return self }
        var generator = self
        var random = context.fieldSeed.derive("phase").generator()
        generator.phase += random.nextUnit()
        generator.randomPhase = false
        return generator
    }

    package func value(at instant: PublishInstant) -> SignalValue {
        if let peak {
            let cycles = peak.fraction(wallClock: instant.sampleWallClock, period: period) + phase
            return .number(value(cycles: cycles))
        }
        return .number(value(atTime: instant.sample.time))
    }

    func value(atTime time: Double) -> Double {
        value(cycles: time / period + phase)
    }

    private func value(cycles: Double) -> Double {
        // Reduced to one cycle first so that sin keeps its precision after days of running.
        let fraction = cycles - cycles.rounded(.down)
        let middle = (min + max) / 2
        return middle + (max - min) / 2 * Math.sine(2 * Double.pi * fraction)
    }
}
