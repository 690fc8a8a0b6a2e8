/// xoshiro256** (Blackman, Vigna 2018): fast, small and statistically strong. Ours rather than
/// `SystemRandomNumberGenerator` because a run must replay exactly from its seed, on every platform
/// and Swift version.
package struct Xoshiro256StarStar: RandomNumberGenerator, Sendable {
    @usableFromInline var s0: UInt64
    @usableFromInline var s1: UInt64
    @usableFromInline var s2: UInt64
    @usableFromInline var s3: UInt64

    /// Expands `seed` through SplitMix64, as the xoshiro authors recommend, so that the state is
    /// never all zero and nearby seeds give unrelated streams.
    @inlinable
    package init(seed: UInt64) {
        var expander = SplitMix64(seed: seed)
        s0 = expander.next()
        s1 = expander.next()
        s2 = expander.next()
        s3 = expander.next()
    }

    @inlinable
    package mutating func next() -> UInt64 {
        let result = rotateLeft(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotateLeft(s3, 45)
        return result
    }

    @inlinable
    func rotateLeft(_ x: UInt64, _ k: UInt64) -> UInt64 {
        (x << k) | (x >> (64 &- k))
    }
}
