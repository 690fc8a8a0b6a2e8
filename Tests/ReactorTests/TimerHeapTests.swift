import Reactor
import Testing

/// Records the order its timers fire in.
private final class Recorder: TimerTarget {
    var fired: [Int] = []
    var timers: [Timer] = []

    init(count: Int) {
        timers = (0..<count).map { _ in Timer(target: self) }
    }

    func timerFired(_ timer: Timer, now: UInt64) {
        fired.append(timers.firstIndex { $0 === timer }!)
    }

    /// Pops every timer due at `now` in order and fires it.
    func drain(_ heap: inout TimerHeap, now: UInt64) {
        while let timer = heap.popDue(now: now) {
            timer._withUnsafeGuaranteedRef { $0.target.timerFired($0, now: now) }
        }
    }
}

@Suite struct TimerHeapTests {
    @Test func earlierDeadlinesFireFirstAndEqualOnesInTheOrderScheduled() {
        let recorder = Recorder(count: 6)
        var heap = TimerHeap()
        for (index, deadline) in [30, 10, 20, 10, 30, 10].enumerated() {
            heap.schedule(recorder.timers[index], at: UInt64(deadline))
        }
        #expect(heap.earliest == 10)
        recorder.drain(&heap, now: 100)
        #expect(recorder.fired == [1, 3, 5, 2, 0, 4])
        #expect(heap.isEmpty)
        #expect(recorder.timers.allSatisfy { !$0.isScheduled })
    }

    @Test func nothingFiresBeforeItsDeadline() {
        let recorder = Recorder(count: 2)
        var heap = TimerHeap()
        heap.schedule(recorder.timers[0], at: 50)
        heap.schedule(recorder.timers[1], at: 60)
        recorder.drain(&heap, now: 55)
        #expect(recorder.fired == [0])
        #expect(heap.count == 1 && heap.earliest == 60)
        heap.removeAll()
    }

    @Test func aCancelledTimerNeverFiresAndTheOthersKeepTheirOrder() {
        let recorder = Recorder(count: 100)
        var heap = TimerHeap()
        for (index, timer) in recorder.timers.enumerated() { heap.schedule(timer, at: UInt64((index * 37) % 100)) }
        for index in stride(from: 0, to: 100, by: 3) { heap.cancel(recorder.timers[index]) }
        heap.cancel(recorder.timers[0])  // twice: nothing
        recorder.drain(&heap, now: .max)
        let expected = (0..<100).filter { $0 % 3 != 0 }.sorted { ($0 * 37) % 100 < ($1 * 37) % 100 }
        #expect(recorder.fired == expected)
    }

    @Test func reschedulingMovesATimerEitherWayAndItFiresOnce() {
        let recorder = Recorder(count: 3)
        var heap = TimerHeap()
        heap.schedule(recorder.timers[0], at: 10)
        heap.schedule(recorder.timers[1], at: 20)
        heap.schedule(recorder.timers[2], at: 30)
        heap.schedule(recorder.timers[0], at: 40)  // later
        heap.schedule(recorder.timers[2], at: 5)  // earlier
        #expect(heap.count == 3)
        recorder.drain(&heap, now: .max)
        #expect(recorder.fired == [2, 1, 0])
    }
}
