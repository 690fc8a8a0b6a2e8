extension RandomNumberGenerator {
    /// A double uniformly distributed in [0, 1), from the top 53 bits: every value is a multiple
    /// of 2⁻⁵³, so the result is exact and the same on every platform.
    @inlinable
    package mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// A standard normal deviate (mean 0, σ 1). The second deviate of the pair is dropped so that
    /// a generator carries no hidden spare between calls, which keeps streams easy to reason
    /// about; use `nextGaussianPair()` when two are needed.
    @inlinable
    package mutating func nextGaussian() -> Double {
        nextGaussianPair().0
    }

    /// Two independent standard normal deviates by Marsaglia's polar method: only `sqrt` and
    /// `log`, no trigonometry.
    @inlinable
    package mutating func nextGaussianPair() -> (Double, Double) {
        while true {
            let u = 2 * nextUnit() - 1
            let v = 2 * nextUnit() - 1
            let s = u * u + v * v
            if s > 0 && s < 1 {
                let scale = (-2 * Math.ln(s) / s).squareRoot()
                return (u * scale, v * scale)
            }
        }
    }
}
