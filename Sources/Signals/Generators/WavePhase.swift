/// The `phase` of a wave, `sine`'s or the mean's of a `randomWalk`: a bare number for a fraction
/// of the period (`0.25`), a duration with a unit for a time offset (`6h`), or `random` for a
/// fraction drawn per device from the field's seed, so that a fleet does not rise and fall in
/// lock-step.
package struct WavePhase: Sendable, Equatable {
    /// A fraction of a cycle; for `random`, what the device's own draw is added to.
    package var fraction = 0.0
    /// Each device adds its own fraction in [0, 1) (`forDevice`).
    package var isRandom = false

    package init(fraction: Double = 0, isRandom: Bool = false) {
        self.fraction = fraction
        self.isRandom = isRandom
    }

    /// `phase` of a wave of `period` seconds. With `peakAt`, which puts every device's peak at
    /// one wall-clock time, `random` is refused: it would put each one's anywhere in the period.
    package static func read(from parameters: any ParameterSource, period: Double, peak: WallClockPeak?) throws(ParameterError) -> WavePhase
    {
        var phase = WavePhase()
        // A bare number reads as a number; a duration with a unit does not, so fall back to it.
        if let fraction = try? parameters.number("phase") {
            phase.fraction = fraction
        } else if (try? parameters.string("phase")) == "random" {
            guard peak == nil else {
                throw ParameterError(
                    key: "phase",
                    "phase: random would move each device's peak anywhere in the period, and peakAt puts them all at one time: "
                        + "shift the peak by a fixed phase (0.02, or a duration such as 30m), or leave out peakAt")
            }
            phase.isRandom = true
        } else if let offset = try parameters.duration("phase") {
            phase.fraction = offset / period
        }
        guard phase.fraction.isFinite else { throw ParameterError(key: "phase", "phase must be finite") }
        return phase
    }

    /// Whether the parameters give a `phase` at all.
    package static func isGiven(in parameters: any ParameterSource) -> Bool {
        (try? parameters.string("phase")) != nil || (try? parameters.number("phase")) != nil
    }

    /// The phase of one device: its own draw added for `random`, from `seed` (the field's).
    package func forDevice(_ seed: Seed) -> WavePhase {
        guard isRandom else { return self }
        var random = seed.derive("phase").generator()
        return WavePhase(fraction: fraction + random.nextUnit())
    }
}
