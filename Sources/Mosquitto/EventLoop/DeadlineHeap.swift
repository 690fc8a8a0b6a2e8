/// Something an `EventLoop` timer calls back. Timers are not cancelled: a target that no longer
/// wants a firing ignores it (compare `tag` with what it expects), which keeps the heap simple.
public protocol TimerTarget: AnyObject {
    func timerFired(tag: Int, now: UInt64)
}

/// A binary min-heap of absolute deadlines. Equal deadlines fire in the order they were added.
/// The event loop keeps its timers in one; a dry run drives one with a virtual clock.
public struct DeadlineHeap {
    public struct Entry {
        public var deadline: UInt64
        public var sequence: UInt64
        public var target: TimerTarget
        public var tag: Int

        @inline(__always)
        func fires(before other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
        }
    }

    private var entries: [Entry] = []
    private var nextSequence: UInt64 = 0

    public init() {}

    public var isEmpty: Bool { entries.isEmpty }
    public var count: Int { entries.count }
    public var earliest: UInt64? { entries.first?.deadline }

    public mutating func insert(deadline: UInt64, target: TimerTarget, tag: Int) {
        entries.append(Entry(deadline: deadline, sequence: nextSequence, target: target, tag: tag))
        nextSequence &+= 1
        siftUp(entries.count - 1)
    }

    /// Removes and returns the earliest entry if it is due at `now`.
    public mutating func popDue(now: UInt64) -> Entry? {
        guard let first = entries.first, first.deadline <= now else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            siftDown(0)
        }
        return first
    }

    public mutating func removeAll() {
        entries.removeAll()
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].fires(before: entries[parent]) else { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < entries.count else { return }
            var smallest = left
            let right = left + 1
            if right < entries.count, entries[right].fires(before: entries[left]) { smallest = right }
            guard entries[smallest].fires(before: entries[parent]) else { return }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
