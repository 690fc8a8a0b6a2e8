extension RandomNumberGenerator {
    /// A double uniformly distributed in [0, 1), from the top 53 bits: every value is a multiple
    /// of 2⁻⁵³, so the result is exact and the same on every platform.
    @inlinable
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// A standard normal deviate (mean 0, σ 1) by Marsaglia's polar method: only `sqrt` and `log`,
    /// no trigonometry. The second deviate of each pair is dropped so that a generator carries no
    /// hidden spare between calls, which keeps streams easy to reason about.
    @inlinable
    public mutating func nextGaussian() -> Double {
        while true {
            let u = 2 * nextUnit() - 1
            let v = 2 * nextUnit() - 1
            let s = u * u + v * v
            if s > 0 && s < 1 {
                return u * (-2 * Math.ln(s) / s).squareRoot()
            }
        }
    }
}
