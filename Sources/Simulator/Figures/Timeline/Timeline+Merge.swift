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
            var mine: [Int: Point] = [:]
            for point in timeline.points {
                // A point belongs where it starts; the millisecond of slack absorbs the
                // rounding of `at` in the report.
                let start = timeline.startedAt - origin + point.at
                let slot = Int(((start + 0.001) / width).rounded(.down))
                var placed = point
                placed.at = Double(slot) * width
                placed.seconds = min(width, start + point.seconds - placed.at)
                mine[slot] = mine[slot].map { $0.merged(with: placed) } ?? placed
            }
            for (slot, point) in mine {
                guard var sum = slots[slot] else {
                    slots[slot] = point
                    continue
                }
                sum.seconds = max(sum.seconds, point.seconds)
                sum.scheduled += point.scheduled
                sum.published += point.published
                sum.acknowledged += point.acknowledged
                sum.errors += point.errors
                sum.connectionsUp += point.connectionsUp
                sum.latency = sum.latency + point.latency
                sum.lateness = sum.lateness + point.lateness
                slots[slot] = sum
            }
        }
        return Timeline(intervalSeconds: width, startedAt: origin, points: slots.keys.sorted().map { slots[$0]! })
    }
}
