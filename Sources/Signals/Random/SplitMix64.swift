/// SplitMix64 (Steele, Lea, Flood 2014): a tiny generator whose output is a strong 64-bit mix of a
/// counter. Used to expand one seed into the state of `Xoshiro256StarStar` and to mix seeds, because
/// similar seeds (1, 2, 3…) must still give unrelated streams.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    package var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    @inlinable
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SplitMix64.mix(state)
    }

    /// The SplitMix64 finalizer: a bijective avalanche of `z`, so any one changed input bit
    /// changes about half of the output bits.
    @inlinable
    package static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
