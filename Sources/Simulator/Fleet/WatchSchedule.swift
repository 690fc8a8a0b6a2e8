/// The jobs of the thread that watches a run (`Fleet.waitForEnd`), each with the time it is next
/// due on the monotonic clock and how it comes round again: what is due now, and how long the
/// thread may sleep until the next one. A plain value: what runs when is tested on a virtual
/// clock, without a fleet or a broker.
///
/// Jobs due at the same wake run in the order they were added, which is the order of the checks
/// that matters (a run's end before its connect deadline).
struct WatchSchedule<Job: Equatable> {
    /// How a job comes round again once it has run.
    enum Cadence: Equatable {
        /// Once; then it is done.
        case once
        /// Every `period` nanoseconds from its first due time, in step with the others that
        /// count from the same start: one that ran late is next due at its next step, not
        /// again at once for each step it missed.
        case every(UInt64)
        /// `period` after the time it was due, however late it ran: one that ran late is due
        /// again at once for each period it missed, so that over the run it runs once per period.
        case catchingUp(UInt64)
        /// `period` after the time it ran.
        case after(UInt64)
        /// When its work says (`reschedule`): until then it is not due.
        case asItSays
    }

    private struct Entry {
        let job: Job
        var due: UInt64?
        let cadence: Cadence
    }

    private var entries: [Entry] = []

    init() {}

    /// Adds `job`, first due at `due` (never when `nil`), after the jobs added before it.
    mutating func add(_ job: Job, at due: UInt64?, _ cadence: Cadence) {
        precondition(!entries.contains { $0.job == job }, "a job is added once")
        precondition(cadence != .every(0) && cadence != .catchingUp(0) && cadence != .after(0), "a period is longer than 0")
        entries.append(Entry(job: job, due: due, cadence: cadence))
    }

    /// The jobs due at `now`, in the order they were added; each is moved on to its next due
    /// time as its cadence says, a job `asItSays` to none until its work says when.
    mutating func takeDue(at now: UInt64) -> [Job] {
        var due: [Job] = []
        for index in entries.indices {
            guard let time = entries[index].due, time <= now else { continue }
            due.append(entries[index].job)
            entries[index].due = Self.next(after: time, ranAt: now, entries[index].cadence)
        }
        return due
    }

    private static func next(after due: UInt64, ranAt now: UInt64, _ cadence: Cadence) -> UInt64? {
        switch cadence {
        case .once, .asItSays: nil
        case .every(let period): due &+ ((now &- due) / period &+ 1) &* period
        case .catchingUp(let period): due &+ period
        case .after(let period): now &+ period
        }
    }

    /// Sets when `job` is next due: its work knows (a timeline's next point); `nil` for never.
    mutating func reschedule(_ job: Job, at due: UInt64?) {
        guard let index = entries.firstIndex(where: { $0.job == job }) else { return }
        entries[index].due = due
    }

    /// When `job` is next due; `nil` for never.
    func due(of job: Job) -> UInt64? {
        entries.first { $0.job == job }?.due
    }

    /// The earliest time any job is due; `nil` when none ever is.
    var nextDue: UInt64? {
        entries.compactMap(\.due).min()
    }

    /// Nanoseconds from `now` until a job is due (0 when one is due already); `nil` when none
    /// ever is.
    func wait(from now: UInt64) -> UInt64? {
        nextDue.map { $0 > now ? $0 - now : 0 }
    }
}

/// What a job of a `WatchSchedule` that ran says.
enum WatchOutcome<Reason> {
    /// Nothing more: it is due again as its cadence says.
    case done
    /// It is next due at this time (`nil`: never), as its work found (cadence `asItSays`).
    case dueAgain(UInt64?)
    /// The run is over, for this reason: no job after it runs.
    case end(Reason)
}

extension WatchSchedule {
    /// Watches until a job ends the run or `stopReason` gives a reason, which is asked first at
    /// every wake: runs the jobs due at each wake, in order, then sleeps until the next is due
    /// (`sleep` takes nanoseconds, `nil` for until woken). `sleep` must return at once when a
    /// stop is asked for, so that a stop is not kept waiting for the next job (`RunControl.wait`
    /// does); a wake with nothing due finds nothing to do and sleeps again.
    mutating func watch<Reason>(
        clock: () -> UInt64, stopReason: () -> Reason?, sleep: (_ nanoseconds: UInt64?) -> Void,
        _ work: (_ job: Job, _ now: UInt64) -> WatchOutcome<Reason>
    ) -> Reason {
        while true {
            if let reason = stopReason() { return reason }
            let now = clock()
            for job in takeDue(at: now) {
                switch work(job, now) {
                case .done: break
                case .dueAgain(let due): reschedule(job, at: due)
                case .end(let reason): return reason
                }
            }
            sleep(wait(from: clock()))
        }
    }
}
