/// `sine: { min: 18, max: 26, period: 24h, phase: 0.25 }`: a wave between min and max, as a
/// function of the sample's time. At phase 0 it starts at the midpoint, rising.
///
/// `phase` is a fraction of the period, a time offset, or `random` (see `WavePhase`).
///
/// With `peakAt` the wave follows the wall clock instead of the time since the device connected:
/// `sine: { min: 18, max: 26, period: 24h, peakAt: "14:00", timezone: "+01:00" }` is warmest at
/// 14:00 local time every day, and `period: 7d, peakAt: "Wed 14:00"` makes a weekly shape (see
/// `WallClockPeak`). A fixed `phase` then shifts the wave from that peak; `random` is refused.
package struct SineRecipe: GeneratorRecipe, FieldGenerator {
    package static let key = "sine"
    package var min: Double
    package var max: Double
    /// Seconds.
    package var period: Double
    package var phase: WavePhase
    /// When set, the wave peaks at this wall-clock time and ignores the device's elapsed time.
    package var peak: WallClockPeak?

    package init(min: Double, max: Double, period: Double, phase: WavePhase = WavePhase(), peak: WallClockPeak? = nil) {
        self.min = min
        self.max = max
        self.period = period
        self.phase = phase
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
        let peak = try WallClockPeak.read(from: parameters, period: period)
        let phase = try WavePhase.read(from: parameters, period: period, peak: peak)
        self.init(min: min, max: max, period: period, phase: phase, peak: peak)
    }

    package func makeGenerator(context: GeneratorContext) -> any FieldGenerator {
        var generator = self
        generator.phase = phase.forDevice(context.fieldSeed)
        return generator
    }

    package func value(at instant: PublishInstant) -> SignalValue {
        if let peak {
            let cycles = peak.fraction(wallClock: instant.sampleWallClock, period: period) + phase.fraction
            return .number(value(cycles: cycles))
        }
        return .number(value(atTime: instant.sample.time))
    }

    func value(atTime time: Double) -> Double {
        value(cycles: time / period + phase.fraction)
    }

    private func value(cycles: Double) -> Double {
        // Reduced to one cycle first so that sin keeps its precision after days of running.
        let fraction = cycles - cycles.rounded(.down)
        let middle = (min + max) / 2
        return middle + (max - min) / 2 * Math.sine(2 * Double.pi * fraction)
    }
}
