/// A FIFO bounded by a count and a byte total: the messages a connection keeps while it cannot
/// send them. Pushing into a full queue evicts the oldest first and reports how many went.
package struct BoundedQueue<Element> {
    package let maxMessages: Int
    package let maxBytes: Int
    package private(set) var bytes = 0

    private(set) var storage: [(element: Element, bytes: Int)?] = []
    private var head = 0

    package init(maxMessages: Int, maxBytes: Int) {
        self.maxMessages = maxMessages
        self.maxBytes = maxBytes
    }

    package var count: Int { storage.count - head }
    package var isEmpty: Bool { count == 0 }

    /// Adds `element` at the back, evicting from the front until both bounds hold. Returns the
    /// number evicted; an element larger than `maxBytes` on its own is refused and counts as one.
    package mutating func push(_ element: Element, bytes size: Int) -> Int {
        guard size <= maxBytes, maxMessages > 0 else { return 1 }
        var evicted = 0
        while count >= maxMessages || bytes + size > maxBytes {
            _ = popFirst()
            evicted += 1
        }
        storage.append((element, size))
        bytes += size
        return evicted
    }

    /// Removes and returns the oldest element.
    package mutating func popFirst() -> Element? {
        guard head < storage.count, let first = storage[head] else { return nil }
        storage[head] = nil
        head += 1
        bytes -= first.bytes
        if head == storage.count {
            // Empty: start again at the front. A queue filled and drained at every outage
            // otherwise kept a dead prefix that grew its storage by a few slots each time.
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64, head * 2 > storage.count {
            // Compact once the dead prefix outweighs the live part, keeping pops amortised O(1).
            storage.removeFirst(head)
            head = 0
        }
        return first.element
    }
}
