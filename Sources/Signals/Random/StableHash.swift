/// Hashes that are the same in every process. Swift's `hashValue` is randomly seeded per process,
/// so it cannot derive reproducible seeds from device ids.
package enum StableHash {
    /// FNV-1a, 64 bits, over the UTF-8 bytes of `string`.
    package static func fnv1a64(_ string: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in string.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }
}
