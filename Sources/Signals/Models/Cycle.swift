/// Angles for periodic motion that keep their precision over long runs.
enum Cycle {
    /// `2π` times the fractional part of `cycles`: the angle of a wave `cycles` periods in.
    /// Reducing to one period first keeps `sin` exact after days of running, when `2π f t` alone
    /// would have lost its low digits.
    @inline(__always)
    static func angle(_ cycles: Double) -> Double {
        2 * Double.pi * (cycles - cycles.rounded(.down))
    }
}
