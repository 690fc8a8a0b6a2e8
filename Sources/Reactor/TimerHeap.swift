/// A binary min-heap of timers by deadline; equal deadlines fire in the order they were
/// scheduled. Each timer knows its place, so moving or cancelling one is O(log n). An event
/// loop keeps its timers in one; the dry run drives one on a virtual clock.
///
/// Entries hold the deadline beside the timer, so that sifting compares without following
/// pointers, and hold the timer unretained (see `Timer`).
package struct TimerHeap {
    private struct Entry {
        var deadline: UInt64
        var sequence: UInt64
        var timer: Unmanaged<Timer>

        @inline(__always)
        func fires(before other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
        }
    }

    private var entries: [Entry] = []
    private var nextSequence: UInt64 = 0

    package init() {}

    package var isEmpty: Bool { entries.isEmpty }
    package var count: Int { entries.count }
    /// The earliest deadline, if any timer is scheduled.
    package var earliest: UInt64? { entries.first?.deadline }

    /// Schedules `timer` at `deadline`, moving it if it was scheduled already.
    package mutating func schedule(_ timer: Timer, at deadline: UInt64) {
        let sequence = nextSequence
        nextSequence &+= 1
        timer.deadline = deadline
        timer.sequence = sequence
        if timer.heapIndex >= 0 {
            let index = timer.heapIndex
            entries[index].deadline = deadline
            entries[index].sequence = sequence
            // Earlier or later than before: it may move either way.
            siftDown(index)
            siftUp(timer.heapIndex)
            return
        }
        entries.append(Entry(deadline: deadline, sequence: sequence, timer: Unmanaged.passUnretained(timer)))
        timer.heapIndex = entries.count - 1
        siftUp(entries.count - 1)
    }

    /// Takes `timer` out; nothing if it is not scheduled.
    package mutating func cancel(_ timer: Timer) {
        let index = timer.heapIndex
        guard index >= 0 else { return }
        timer.heapIndex = -1
        let last = entries.removeLast()
        guard index < entries.count else { return }
        entries[index] = last
        last.timer._withUnsafeGuaranteedRef { $0.heapIndex = index }
        siftDown(index)
        siftUp(last.timer._withUnsafeGuaranteedRef { $0.heapIndex })
    }

    /// Removes and returns the earliest timer if it is due at `now`, unretained: the caller
    /// reaches it with `_withUnsafeGuaranteedRef` or `takeUnretainedValue()`.
    package mutating func popDue(now: UInt64) -> Unmanaged<Timer>? {
        guard let first = entries.first, first.deadline <= now else { return nil }
        first.timer._withUnsafeGuaranteedRef { $0.heapIndex = -1 }
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            last.timer._withUnsafeGuaranteedRef { $0.heapIndex = 0 }
            siftDown(0)
        }
        return first.timer
    }

    /// Unschedules every timer.
    package mutating func removeAll() {
        for entry in entries { entry.timer._withUnsafeGuaranteedRef { $0.heapIndex = -1 } }
        entries.removeAll()
    }

    @inline(__always)
    private mutating func place(_ entry: Entry, at index: Int) {
        entries[index] = entry
        entry.timer._withUnsafeGuaranteedRef { $0.heapIndex = index }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        let entry = entries[child]
        while child > 0 {
            let parent = (child - 1) / 2
            guard entry.fires(before: entries[parent]) else { break }
            place(entries[parent], at: child)
            child = parent
        }
        if child != start { place(entry, at: child) }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        let entry = entries[parent]
        let count = entries.count
        while true {
            let left = 2 * parent + 1
            guard left < count else { break }
            var smallest = left
            let right = left + 1
            if right < count, entries[right].fires(before: entries[left]) { smallest = right }
            guard entries[smallest].fires(before: entry) else { break }
            place(entries[smallest], at: parent)
            parent = smallest
        }
        if parent != start { place(entry, at: parent) }
    }
}
