/// What a `Timer` calls when its deadline comes.
package protocol TimerTarget: AnyObject {
    /// `timer` is due; `now` is the loop's clock (monotonic nanoseconds) as it fires it.
    func timerFired(_ timer: Timer, now: UInt64)
}

/// A deadline on an event loop's clock that calls its target on the loop's thread: made once by
/// its owner, then scheduled, moved and cancelled as often as needed, each in O(log n) timers.
///
/// The loop keeps its timers unretained, and a timer keeps its target unretained: the owner holds
/// the timer and outlives it, which is what lets a device tick a million times without a single
/// reference count changing (the profile before this type: 25 % of the publish path's CPU in
/// `swift_retain`/`swift_release`, much of it the loop's timers). A timer must be cancelled, or
/// have fired, or its loop have stopped, before it goes away; debug builds check it.
package final class Timer {
    /// Set once, right after the owner is made, when the owner is the target: see `init(on:)`.
    package unowned(unsafe) var target: TimerTarget
    /// The loop whose heap it goes in; `nil` for a timer on a heap of its own (the dry run's).
    /// Strong, which costs nothing (the loop holds its timers unretained, so there is no cycle):
    /// held `unowned(unsafe)`, every `schedule(at:)` retained and released it.
    package let loop: EventLoop?
    /// When it is due, while scheduled.
    package internal(set) var deadline: UInt64 = 0
    /// Among equal deadlines, the order of scheduling.
    var sequence: UInt64 = 0
    /// Its place in its heap, or -1 when not scheduled.
    var heapIndex = -1

    /// A timer of `loop`'s, calling `target`; not scheduled yet.
    package init(on loop: EventLoop, target: TimerTarget) {
        self.loop = loop
        self.target = target
    }

    /// A timer of `loop`'s whose target is set before it is first scheduled: an owner keeps it
    /// in a `let` that way (a `var` costs a retain at each use) and makes it before `self` is.
    package init(on loop: EventLoop) {
        self.loop = loop
        target = Timer.unset
    }

    private static let unset = Unset()

    private final class Unset: TimerTarget, Sendable {
        func timerFired(_ timer: Timer, now: UInt64) {
            preconditionFailure("a Timer made with init(on:) fired before its target was set")
        }
    }

    /// A timer for a `TimerHeap` of the caller's own (a virtual clock).
    package init(target: TimerTarget) {
        loop = nil
        self.target = target
    }

    deinit {
        assert(heapIndex < 0, "a Timer went away while scheduled: its heap would call a dead target")
    }

    package var isScheduled: Bool { heapIndex >= 0 }

    /// Fires at `deadline` (monotonic nanoseconds) or soon after, instead of when it was to
    /// fire before if it was scheduled. Loop thread only.
    @inline(__always)
    package func schedule(at deadline: UInt64) {
        guard let loop else { preconditionFailure("Timer.schedule(at:) on a timer without a loop: use its TimerHeap") }
        loop.assertInEventLoop()
        loop.timers.schedule(self, at: deadline)
    }

    /// Will not fire (until scheduled again). Loop thread only.
    package func cancel() {
        guard let loop else { preconditionFailure("Timer.cancel() on a timer without a loop: use its TimerHeap") }
        loop.assertInEventLoop()
        loop.timers.cancel(self)
    }
}
