/// A `Histogram` that keeps only the buckets holding values: what a timeline keeps for each of
/// its intervals. An interval's latencies fill tens to a few hundred of the 3,776 buckets, so
/// this is about a hundredth of a whole histogram's 30 KB.
package struct SparseHistogram: Sendable, Equatable {
    private var indices: [UInt16] = []
    private var counts: [UInt64] = []
    private var min: UInt64 = 0
    private var max: UInt64 = 0

    package init() {}

    package init(_ histogram: Histogram) {
        guard !histogram.isEmpty else { return }
        let buckets = histogram.buckets
        indices.reserveCapacity(buckets.count)
        counts.reserveCapacity(buckets.count)
        for bucket in buckets {
            indices.append(UInt16(bucket.index))
            counts.append(bucket.count)
        }
        min = histogram.min
        max = histogram.max
    }

    package var isEmpty: Bool { counts.isEmpty }

    /// The whole histogram again, to read percentiles from or to merge.
    package var histogram: Histogram {
        guard !isEmpty else { return Histogram() }
        // The buckets came from a histogram, so they make one.
        return Histogram(buckets: zip(indices, counts).map { (Int($0), $1) }, min: min, max: max)!
    }

    /// Both histograms' values: the buckets merged in order, without making whole histograms,
    /// since a timeline adds every reading to its last point.
    package static func + (left: SparseHistogram, right: SparseHistogram) -> SparseHistogram {
        if left.isEmpty { return right }
        if right.isEmpty { return left }
        var sum = SparseHistogram()
        // Exactly the room needed: a long run's points are kept for the whole run.
        var shared = 0, l = 0, r = 0
        while l < left.indices.count && r < right.indices.count {
            if left.indices[l] == right.indices[r] { shared += 1 }
            if left.indices[l] <= right.indices[r] { l += 1 } else { r += 1 }
        }
        let size = left.indices.count + right.indices.count - shared
        sum.indices.reserveCapacity(size)
        sum.counts.reserveCapacity(size)
        l = 0
        r = 0
        while l < left.indices.count || r < right.indices.count {
            let takeLeft = r == right.indices.count || (l < left.indices.count && left.indices[l] <= right.indices[r])
            let takeRight = l == left.indices.count || (r < right.indices.count && right.indices[r] <= left.indices[l])
            sum.indices.append(takeLeft ? left.indices[l] : right.indices[r])
            sum.counts.append((takeLeft ? left.counts[l] : 0) + (takeRight ? right.counts[r] : 0))
            if takeLeft { l += 1 }
            if takeRight { r += 1 }
        }
        sum.min = Swift.min(left.min, right.min)
        sum.max = Swift.max(left.max, right.max)
        return sum
    }

    /// Bytes held on the heap, for the memory a long run's timeline costs.
    package var heapBytes: Int { indices.capacity * MemoryLayout<UInt16>.stride + counts.capacity * MemoryLayout<UInt64>.stride }
}
