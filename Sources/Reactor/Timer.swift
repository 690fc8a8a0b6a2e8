/// What a `Timer` calls when its deadline comes.
public protocol TimerTarget: AnyObject {
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
public final class Timer {
    public unowned(unsafe) let target: TimerTarget
    /// The loop whose heap it goes in; `nil` for a timer on a heap of its own (the dry run's).
    public unowned(unsafe) let loop: EventLoop?
    /// When it is due, while scheduled.
    public internal(set) var deadline: UInt64 = 0
    /// Among equal deadlines, the order of scheduling.
    var sequence: UInt64 = 0
    /// Its place in its heap, or -1 when not scheduled.
    var heapIndex = -1

    /// A timer of `loop`'s, calling `target`; not scheduled yet.
    public init(on loop: EventLoop, target: TimerTarget) {
        self.loop = loop
        self.target = target
    }

    /// A timer for a `TimerHeap` of the caller's own (a virtual clock).
    public init(target: TimerTarget) {
        loop = nil
        self.target = target
    }

    deinit {
        assert(heapIndex < 0, "a Timer went away while scheduled: its heap would call a dead target")
    }

    public var isScheduled: Bool { heapIndex >= 0 }

    /// Fires at `deadline` (monotonic nanoseconds) or soon after, instead of when it was to
    /// fire before if it was scheduled. Loop thread only.
    @inline(__always)
    public func schedule(at deadline: UInt64) {
        guard let loop else { preconditionFailure("Timer.schedule(at:) on a timer without a loop: use its TimerHeap") }
        loop.preconditionInEventLoop()
        loop.timers.schedule(self, at: deadline)
    }

    /// Will not fire (until scheduled again). Loop thread only.
    public func cancel() {
        guard let loop else { preconditionFailure("Timer.cancel() on a timer without a loop: use its TimerHeap") }
        loop.preconditionInEventLoop()
        loop.timers.cancel(self)
    }
}
