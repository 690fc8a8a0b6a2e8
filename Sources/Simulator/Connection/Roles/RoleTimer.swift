import Reactor

/// A role's timer on its connection's loop: when due, the role hears `timerFired` with its
/// connection's context, as it hears every other event. The role holds it; it holds the role and
/// the context unretained, as the loop holds its timers: the connection outlives its roles, and
/// the role's `finished` cancels what it scheduled.
final class RoleTimer: TimerTarget {
    private unowned(unsafe) let role: any ConnectionRole
    private unowned(unsafe) let context: any RoleContext
    private let timer: Timer
    /// The dry run's clock, for a timer of a dry run's connection; `nil` on a loop.
    private let clock: DryRunClock?

    init(role: any ConnectionRole, context: any RoleContext, loop: EventLoop) {
        self.role = role
        self.context = context
        timer = Timer(on: loop)
        clock = nil
        timer.target = self
    }

    /// A timer of a dry run's connection, on its virtual clock.
    init(role: any ConnectionRole, context: any RoleContext, clock: DryRunClock) {
        self.role = role
        self.context = context
        timer = Timer(target: Self.unset)
        self.clock = clock
        timer.target = self
    }

    private static let unset = Unset()

    private final class Unset: TimerTarget, Sendable {
        func timerFired(_ timer: Timer, now: UInt64) {}
    }

    var isScheduled: Bool { timer.isScheduled }

    func schedule(at deadline: UInt64) {
        if let clock { clock.heap.schedule(timer, at: deadline) } else { timer.schedule(at: deadline) }
    }

    func cancel() {
        if let clock { clock.heap.cancel(timer) } else { timer.cancel() }
    }

    deinit {
        if let clock, timer.isScheduled { clock.heap.cancel(timer) }
    }

    func timerFired(_ timer: Timer, now: UInt64) {
        role.timerFired(self, now: now, context)
    }
}
