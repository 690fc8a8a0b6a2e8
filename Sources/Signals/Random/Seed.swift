/// A node in the tree of seeds: run → device → field or model → sample. Each value gets its own
/// stream derived by label, so adding a field or a model never shifts the values of another, and a
/// sample's randomness depends on its index alone, never on how many values were drawn before it.
package struct Seed: Sendable, Hashable {
    package var value: UInt64

    package init(_ value: UInt64) {
        self.value = value
    }

    /// The child seed named `label` (a device id, a field name, a model key).
    package func derive(_ label: String) -> Seed {
        Seed(SplitMix64.mix(value ^ StableHash.fnv1a64(label)))
    }

    /// The child seed for the `index`-th sample or publish.
    @inlinable
    package func derive(_ index: Int) -> Seed {
        // Offsetting by one keeps index 0 from returning a plain mix of the parent.
        Seed(SplitMix64.mix(value ^ (UInt64(bitPattern: Int64(index)) &+ 1) &* 0x9E37_79B9_7F4A_7C15))
    }

    /// A generator that starts this seed's stream.
    @inlinable
    package func generator() -> Xoshiro256StarStar {
        Xoshiro256StarStar(seed: value)
    }
}
