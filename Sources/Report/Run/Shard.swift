/// One of `count` disjoint slices of a fleet's devices (`run --shard K/N`), numbered from 0 as a
/// Kubernetes Indexed Job numbers its pods (`JOB_COMPLETION_INDEX`), so `index` is in `0..<count`.
///
/// A device belongs to the shard that the jump consistent hash (Lamping & Veach, 2014) of a
/// stable 64-bit hash of its id picks among `count` buckets. That depends on the device's id and
/// `count` alone — not on the scenario's other devices or groups, nor on the process — so the
/// shards are disjoint and together the whole fleet, near-equal in size, and going from N to N+1
/// shards moves only about 1/(N+1) of the devices (the ones the new shard takes).
public struct Shard: Sendable, Hashable, Codable, CustomStringConvertible {
    public var index: Int
    public var count: Int

    /// The most shards a fleet can be cut into.
    package static let maximumCount = 1_000_000

    /// `nil` unless `0 <= index < count <= maximumCount`.
    public init?(index: Int, count: Int) {
        guard count >= 1, count <= Self.maximumCount, index >= 0, index < count else { return nil }
        self.index = index
        self.count = count
    }

    /// `K/N`, as `--shard` and `DEVSIM_SHARD` take it.
    public var description: String { "\(index)/\(count)" }

    /// Parses `K/N`; the error says what was wrong, without naming the flag.
    public static func parse(_ text: String) throws(ShardError) -> Shard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw ShardError("expected K/N, shard K of N counted from 0 (0/4 to 3/4), found '\(text)'")
        }
        return try shard(index: index, count: count, text: text)
    }

    /// The shard of a Kubernetes Indexed Job's pod: `JOB_COMPLETION_INDEX` of `DEVSIM_SHARDS`.
    public static func parse(index: String, count: String) throws(ShardError) -> Shard {
        guard let count = Int(count) else {
            throw ShardError("DEVSIM_SHARDS: expected the number of shards (the Job's completions), found '\(count)'")
        }
        guard let value = Int(index) else {
            throw ShardError("JOB_COMPLETION_INDEX: expected a whole number from 0, found '\(index)'")
        }
        return try shard(index: value, count: count, text: "\(index)/\(count)")
    }

    private static func shard(index: Int, count: Int, text: String) throws(ShardError) -> Shard {
        guard count >= 1, count <= maximumCount else {
            throw ShardError("the number of shards must be from 1 to \(maximumCount), found '\(text)'")
        }
        guard index >= 0, index < count, let shard = Shard(index: index, count: count) else {
            let hint =
                index == count ? " (shards count from 0, as JOB_COMPLETION_INDEX does: the last of \(count) is \(count - 1)/\(count))" : ""
            throw ShardError("shard index must be from 0 to \(count - 1), found '\(text)'\(hint)")
        }
        return shard
    }
}
