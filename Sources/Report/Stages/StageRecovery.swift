/// How a fleet came back from a stage that dropped every connection (`disconnect: all`):
/// `{"dropped":N,"back":M,"p50Seconds":…,"p90Seconds":…,"allSeconds":…}`, the seconds from the
/// drop until half, 90 % and all of the dropped connections had their CONNACK again; each
/// absent until that many were back.
public struct StageRecovery: Codable, Sendable, Equatable {
    public var dropped: Int
    public var back: Int
    public var p50Seconds: Double?
    public var p90Seconds: Double?
    public var allSeconds: Double?

    /// From the seconds each connection that came back took, in any order.
    package init(dropped: Int, back seconds: [Double]) {
        self.dropped = dropped
        back = seconds.count
        let sorted = seconds.sorted()
        func within(_ share: Double) -> Double? {
            let needed = max(1, Int((Double(dropped) * share).rounded(.up)))
            return dropped > 0 && sorted.count >= needed ? sorted[needed - 1].thousandths : nil
        }
        p50Seconds = within(0.5)
        p90Seconds = within(0.9)
        allSeconds = within(1)
    }

    /// Shards' recoveries from one stage: the counts added, and the time until all were back
    /// the longest of theirs, when every shard had all back. The shares' times cannot be made
    /// from theirs, so they are left out (`mergeWarning`).
    package init(dropped: Int, back: Int, p50Seconds: Double?, p90Seconds: Double?, allSeconds: Double?) {
        self.dropped = dropped
        self.back = back
        self.p50Seconds = p50Seconds
        self.p90Seconds = p90Seconds
        self.allSeconds = allSeconds
    }

    package func beside(_ other: StageRecovery) -> StageRecovery {
        var sum = self
        sum.dropped += other.dropped
        sum.back += other.back
        sum.p50Seconds = nil
        sum.p90Seconds = nil
        sum.allSeconds = allSeconds.flatMap { mine in other.allSeconds.map { max(mine, $0) } }
        return sum
    }

    package static let mergeWarning =
        "the shards' reconnect storms are added up: the merged recovery gives the counts and the time until all were back, "
        + "not the 50 % and 90 % times, which the shards' reports keep"
}
