extension Timeline.Point {
    /// This point and another of the same interval, from runs side by side (shards): counts,
    /// connections and histograms added, the longer of the two lengths.
    package func beside(_ other: Timeline.Point) -> Timeline.Point {
        var sum = adding(other)
        sum.seconds = max(seconds, other.seconds)
        sum.connectionsUp += other.connectionsUp
        return sum
    }
}

extension Timeline {
    /// Shards' timelines as one (`devsim report merge`): points lined up by wall-clock time on
    /// the widest interval among them, counts and histograms added, and connections up the sum
    /// of each shard's last point in the interval.
    package static func merged(_ timelines: [Timeline]) -> Timeline? {
        guard let origin = timelines.map(\.startedAt).min(), let width = timelines.map(\.intervalSeconds).max(), width > 0 else {
            return nil
        }
        var slots: [Int: Point] = [:]
        for timeline in timelines {
            // Each point where its interval falls on the shard's grid, not where its reading
            // happened to be taken: a reading a few milliseconds late must not move a point into
            // the next slot when the shard's start is near a slot's edge.
            let offset = timeline.startedAt - origin
            var mine: [Int: Point] = [:]
            for point in timeline.points {
                let nominal = (point.at / timeline.intervalSeconds).rounded() * timeline.intervalSeconds
                let slot = Int(((offset + nominal) / width + 1e-9).rounded(.down))
                var placed = point
                placed.at = Double(slot) * width
                placed.seconds = min(width, offset + nominal + point.seconds - placed.at)
                mine[slot] = mine[slot].map { $0.merged(with: placed) } ?? placed
            }
            for (slot, point) in mine { slots[slot] = slots[slot].map { $0.beside(point) } ?? point }
        }
        return Timeline(intervalSeconds: width, startedAt: origin, points: slots.keys.sorted().map { slots[$0]! })
    }
}
