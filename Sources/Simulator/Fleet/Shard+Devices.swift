import Report
import Signals

/// Which devices a shard drives: the hash that picks them is the fleet's business, not the
/// report's, which only names the shard.
extension Shard {
    /// Whether the device with this id is in the shard.
    public func contains(deviceID: String) -> Bool {
        Self.bucket(of: deviceID, count: count) == index
    }

    /// Whether the shard runs the shared subscriber group (`$share/…`) of this name, all its
    /// members: the one the name hashes to as a device's id does. The broker deals a shared
    /// stream over every member, so members on several shards would each judge only a part.
    package func runsSharedGroup(named name: String) -> Bool {
        Self.bucket(of: name, count: count) == index
    }

    /// The shard, of `count`, that the device with this id belongs to.
    package static func bucket(of deviceID: String, count: Int) -> Int {
        // FNV-1a alone changes little but the low bits between ids that differ in their last
        // character ("dev-1", "dev-2"); the SplitMix64 finalizer spreads that over all 64 bits.
        jumpConsistentHash(SplitMix64.mix(StableHash.fnv1a64(deviceID)), buckets: count)
    }

    /// Lamping & Veach's jump consistent hash: a bucket in `0..<buckets` for `key`, such that
    /// growing `buckets` by one moves a key only into the new bucket, with probability 1/(n+1).
    package static func jumpConsistentHash(_ key: UInt64, buckets: Int) -> Int {
        precondition(buckets > 0, "jump consistent hash needs at least one bucket")
        var key = key
        var bucket: Int64 = -1
        var next: Int64 = 0
        while next < Int64(buckets) {
            bucket = next
            key = key &* 2_862_933_555_777_941_757 &+ 1
            next = Int64(Double(bucket + 1) * (Double(UInt64(1) << 31) / Double((key >> 33) + 1)))
        }
        return Int(bucket)
    }
}
