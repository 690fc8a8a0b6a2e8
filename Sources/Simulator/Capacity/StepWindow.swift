import Reactor
import Report

/// One device's part in a capacity step's `lost` (`--slo 'lost==0'` with `--verify`): the
/// sequence numbers it published while the step held, and how many of those the closed-loop
/// check received.
///
/// The window is a range of sequence numbers, `[from, to)`, and both sides count by it: the
/// device each message it publishes in the range, the verifier each distinct one it receives in
/// the range. The range opens (`open`) and closes (`close`) just past the last number the
/// device has handed over, so every message handed over before the opening falls below it and
/// every one after the closing above it, whatever order they go out in. The device claims each
/// number (`claim`) before it hands the message to libmosquitto, so a bound never moves past
/// a number that may be on its way, and no message is counted on one side and not the other.
/// Messages of a step that come after the next one opened are below its range: not counted.
///
/// A lock, not atomics: opening resets the counts with the bounds, and a verifier that reads
/// the bounds, is preempted and counts late must not count into the next step. Only devices of
/// a search with a `lost` SLO have a window, so the lock costs nothing elsewhere. `Locked`, not
/// `Mutex`: the device's loop, the verifier's and the watching thread all take it, and
/// ThreadSanitizer cannot follow a contended `Mutex` (`Locked` says why).
final class StepWindow: Sendable {
    private struct State {
        var from = Int64.max
        var to = Int64.max
        /// The highest sequence number the device has claimed (handed over, or about to be); -1
        /// before the first.
        var last: Int64 = -1
        var published = 0
        var received = 0

        func holds(_ sequence: Int64) -> Bool { sequence >= from && sequence < to }
    }

    private let state = Locked(State())

    init() {}

    /// On the device's loop, before the message numbered `sequence` is handed over: whether
    /// the window holds it. Count it (`countPublished`) once it was taken.
    func claim(_ sequence: Int64) -> Bool {
        state.withLock { state in
            state.last = max(state.last, sequence)
            return state.holds(sequence)
        }
    }

    /// The message `claim` said the window holds was published.
    func countPublished() {
        state.withLock { $0.published += 1 }
    }

    /// On the verifier's loop: it received `sequence` for the first time.
    func received(_ sequence: Int64) {
        state.withLock { state in
            if state.holds(sequence) { state.received += 1 }
        }
    }

    /// A step's hold begins: what the device publishes from now is counted, from nothing.
    func open() {
        state.withLock { state in
            state.from = state.last &+ 1
            state.to = .max
            state.published = 0
            state.received = 0
        }
    }

    /// The hold is over: nothing the device publishes from now counts; what it published in the
    /// window may still arrive.
    func close() {
        state.withLock { state in
            state.to = min(state.to, state.last &+ 1)
        }
    }

    /// What the device published in the window, and how much of it arrived so far.
    var counts: StepLoss { state.withLock { StepLoss(published: $0.published, received: $0.received) } }
}
