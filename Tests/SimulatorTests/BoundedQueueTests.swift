import Testing
@testable import Report
@testable import Simulator

@Suite struct BoundedQueueTests {
    /// Found by the soak: each broker restart filled and drained every connection's queue by a
    /// few messages, and the storage kept growing by that much until it compacted at 64.
    @Test func aQueueFilledAndDrainedOverAndOverDoesNotGrow() {
        var queue = BoundedQueue<Int>(maxMessages: 100, maxBytes: 100_000)
        for outage in 0..<1000 {
            for i in 0..<3 { _ = queue.push(outage * 3 + i, bytes: 10) }
            while queue.popFirst() != nil {}
        }
        #expect(queue.isEmpty)
        #expect(queue.storage.capacity <= 8)
    }

    @Test func keepsOrder() {
        var queue = BoundedQueue<Int>(maxMessages: 10, maxBytes: 1000)
        for i in 0..<5 { #expect(queue.push(i, bytes: 10) == 0) }
        #expect((0..<5).map { _ in queue.popFirst() } == [0, 1, 2, 3, 4])
        #expect(queue.popFirst() == nil)
        #expect(queue.bytes == 0)
    }

    @Test func evictsOldestWhenCountIsReached() {
        var queue = BoundedQueue<Int>(maxMessages: 3, maxBytes: 1000)
        for i in 0..<3 { _ = queue.push(i, bytes: 1) }
        #expect(queue.push(3, bytes: 1) == 1)
        #expect(queue.count == 3)
        #expect(queue.popFirst() == 1)
    }

    @Test func evictsOldestUntilBytesFit() {
        var queue = BoundedQueue<Int>(maxMessages: 100, maxBytes: 100)
        for i in 0..<4 { _ = queue.push(i, bytes: 25) }
        #expect(queue.push(4, bytes: 60) == 3)
        #expect(queue.bytes == 85)
        #expect(queue.popFirst() == 3)
        #expect(queue.popFirst() == 4)
    }

    @Test func refusesAnElementLargerThanTheWholeBound() {
        var queue = BoundedQueue<Int>(maxMessages: 100, maxBytes: 100)
        _ = queue.push(1, bytes: 10)
        #expect(queue.push(2, bytes: 101) == 1)
        #expect(queue.count == 1)
    }

    @Test func staysCorrectOverManyCycles() {
        var queue = BoundedQueue<Int>(maxMessages: 50, maxBytes: .max)
        var expected = 0
        for i in 0..<10_000 {
            _ = queue.push(i, bytes: 1)
            if i % 3 == 0, let first = queue.popFirst() {
                #expect(first >= expected)
                expected = first + 1
            }
        }
        // Full at 50 after the last push, which was also a popping step.
        #expect(queue.count == 49)
    }
}
