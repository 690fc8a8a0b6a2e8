/// `sine: { min: 18, max: 26, period: 24h, phase: 0.25 }`: a wave between min and max, as a
/// function of the sample's time. At phase 0 it starts at the midpoint, rising.
///
/// `phase` is a bare number for a fraction of the period (`0.25`, a quarter cycle) or a duration
/// with a unit (`6h`) for a time offset.
public struct SineRecipe: GeneratorRecipe, FieldGenerator {
    public static let key = "sine"
    public var min: Double
    public var max: Double
    /// Seconds.
    public var period: Double
    /// Fraction of a cycle.
    public var phase: Double

    public init(min: Double, max: Double, period: Double, phase: Double = 0) {
        self.min = min
        self.max = max
        self.period = period
        self.phase = phase
    }

    public init(parameters: any ParameterSource) throws(ParameterError) {
        try parameters.rejectShorthand(Self.key, expecting: "min, max and period")
        let (min, max) = try parameters.requiredRange()
        guard let period = try parameters.duration("period") else {
            throw ParameterError(key: "period", "period is required")
        }
        guard period > 0, period.isFinite else {
            throw ParameterError(key: "period", "period must be greater than zero")
        }
        var phase = 0.0
        // A bare number reads as a number; a duration with a unit does not, so fall back to it.
        if let fraction = try? parameters.number("phase") {
            phase = fraction
        } else if let offset = try parameters.duration("phase") {
            phase = offset / period
        }
        guard phase.isFinite else { throw ParameterError(key: "phase", "phase must be finite") }
        self.init(min: min, max: max, period: period, phase: phase)
    }

    public func makeGenerator(context: GeneratorContext) -> any FieldGenerator {
        self
    }

    public func value(at instant: PublishInstant) -> SignalValue {
        .number(value(atTime: instant.sample.time))
    }

    func value(atTime time: Double) -> Double {
        let cycles = time / period + phase
        // Reduced to one cycle first so that sin keeps its precision after days of running.
        let fraction = cycles - cycles.rounded(.down)
        let middle = (min + max) / 2
        return middle + (max - min) / 2 * Math.sine(2 * Double.pi * fraction)
    }
}
