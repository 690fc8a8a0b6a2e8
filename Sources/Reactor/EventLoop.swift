import CLinux
import Glibc
import Logging
import Synchronization

/// A thread that waits on a level-triggered epoll for its sources' descriptors, fires its timers
/// from a heap of deadlines on the monotonic clock, and runs jobs other threads hand it through
/// an eventfd. It knows nothing of MQTT.
///
/// Everything a loop owns (its sources, their timers, what they drive) is touched on its thread
/// only, so the hot path takes no locks; what it owns crosses threads inside a `LoopBound`, which
/// checks where it is opened, and the loop's own entry points that say "loop thread only" assert
/// it in debug builds (`assertInEventLoop`). Other threads reach it through `execute(_:)` and
/// `submit(_:)`, until it has stopped: then it refuses their jobs rather than drop them.
///
/// What the loop sees and would otherwise keep to itself (a descriptor epoll refused, a failed
/// wake-up, a kernel without `epoll_pwait2`) goes to its `logger`, which what runs on it (a
/// client, a WebSocket bridge) uses too.
///
/// `@unchecked Sendable` because it is the one thing every thread shares by design: what other
/// threads use is atomic or behind a lock (`jobs`, `loopThread`, `isRunning`), its thread and CPU
/// clock are its holder's (`start`, `stop`), and the rest is its thread's, as its entry points
/// check.
package final class EventLoop: @unchecked Sendable {
    /// A source's place in its loop: what it passes to `update`, `descriptorClosed` and
    /// `deregister`.
    package struct Registration: Hashable, Sendable {
        let slot: Int
        let generation: UInt32
    }

    package let name: String
    /// Where the loop and its sources say what they see: details at debug level, and at error
    /// level only what leaves the loop unable to work as it should.
    package let logger: Logger
    private let selector: Selector
    private let wakeup: Int32
    private var thread: JoinableThread?
    /// The loop thread's `pthread_self()`, 0 until it runs: what `inEventLoop` compares with.
    private let loopThread = Atomic<UInt>(0)
    private let stopping = Atomic<Bool>(false)
    /// From `start()` until `stop()` has joined the thread: while set, what the loop owns is its
    /// thread's alone (`callerOwnsState`).
    private let isRunning = Atomic<Bool>(false)
    /// The loop thread's CPU-time clock (`pthread_getcpuclockid`), once it runs.
    private var cpuClock: clockid_t?
    private let jobs = Locked(Jobs())

    /// The jobs other threads handed over, and whether the loop still takes them.
    private struct Jobs {
        var pending: [@Sendable () -> Void] = []
        /// Set once the loop has run its last job: what comes after would never run.
        var isClosed = false
    }

    // Confined to the loop thread.
    var timers = TimerHeap()
    private var nextHousekeeping: UInt64 = 0

    private static let wakeupKey = Selector.Key(slot: .max, epoch: .max)
    private static let housekeepingInterval: UInt64 = 1_000_000_000

    /// Makes the epoll set and the eventfd; nothing runs until `start()`. Without a `logger`,
    /// the loop logs as devsim does by default: to standard error, from the info level.
    package init(name: String, logger: Logger = Logger()) throws(SystemError) {
        self.name = name
        self.logger = logger
        selector = try Selector()
        guard let wakeup = try systemCall("eventfd", { eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)) }) else {
            throw SystemError(call: "eventfd", errno: EAGAIN)
        }
        self.wakeup = wakeup
        var event = epoll_event(events: EPOLLIN.rawValue, data: EventLoop.wakeupKey.data)
        do {
            _ = try systemCall("epoll_ctl", { epoll_ctl(selector.epoll, EPOLL_CTL_ADD, wakeup, &event) })
        } catch {
            close(wakeup)
            throw error
        }
    }

    deinit {
        close(wakeup)
    }

    // MARK: Any thread

    /// Starts the loop's thread, which holds the loop until it stops.
    package func start() throws(SystemError) {
        isRunning.store(true, ordering: .relaxed)
        let thread: JoinableThread
        do { thread = try JoinableThread { [self] in run() } } catch {
            isRunning.store(false, ordering: .relaxed)
            throw error
        }
        self.thread = thread
        var clock = clockid_t()
        let rc = pthread_getcpuclockid(thread.handle, &clock)
        if rc == 0 {
            cpuClock = clock
        } else {
            logger.debug("\(SystemError(call: "pthread_getcpuclockid", errno: rc)): its CPU time reads as 0", ["loop": .string(name)])
        }
    }

    /// Runs `job` on the loop's thread, soon, after the jobs handed to it before; throws, and
    /// will never run it, once the loop has stopped. For a caller that may outlive the loop (a
    /// signal, an HTTP event, a test hook on a timer), which says what a refusal means to it.
    package func submit(_ job: @escaping @Sendable () -> Void) throws(EventLoopStopped) {
        let taken = jobs.withLock { jobs in
            guard !jobs.isClosed else { return false }
            jobs.pending.append(job)
            return true
        }
        guard taken else { throw EventLoopStopped(loop: name) }
        var one: UInt64 = 1
        // EAGAIN: the counter is already far from zero, so the loop wakes anyway.
        do { _ = try systemCall("write", { write(wakeup, &one, 8) }) } catch {
            logger.error("cannot wake the event loop for a job (it runs when the loop next wakes): \(error)", ["loop": .string(name)])
        }
    }

    /// `submit(_:)` for a caller that stops the loop itself, after its last job: a job for a
    /// loop that has stopped is a bug, and traps instead of vanishing.
    package func execute(_ job: @escaping @Sendable () -> Void) {
        do { try submit(job) } catch { preconditionFailure("\(error)") }
    }

    /// Ends the loop after the jobs handed to it, those they hand it too, and waits for its
    /// thread. A loop that has stopped already is left as it is.
    package func stop() {
        do { try submit { [self] in stopping.store(true, ordering: .relaxed) } } catch { return }
        thread?.join()
        thread = nil
        isRunning.store(false, ordering: .relaxed)
    }

    /// The CPU time the loop's thread has had so far, in nanoseconds: `clock_gettime` of its
    /// `pthread_getcpuclockid` clock. A share of the wall time near 100 % says it cannot keep
    /// up; unlike the time between its waits, it leaves out the time the thread was ready but
    /// another had the core. 0 before `start()`. Any thread, as the clock is read from outside.
    package var cpuNanoseconds: UInt64 {
        guard let cpuClock else { return 0 }
        var spec = timespec()
        guard clock_gettime(cpuClock, &spec) == 0 else { return 0 }
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// Whether the caller is on this loop's thread.
    package var inEventLoop: Bool {
        loopThread.load(ordering: .relaxed) == UInt(pthread_self())
    }

    /// Whether the caller may touch what the loop owns (`LoopBound`): on the loop's thread while
    /// it runs; before `start()` and once `stop()` has returned, the thread that holds the loop
    /// (which makes what it will own, and reads it after), as no other runs it then.
    package var callerOwnsState: Bool {
        inEventLoop || !isRunning.load(ordering: .relaxed)
    }

    /// Traps, in debug builds, when called off the loop's thread: the check of the loop's own
    /// entry points that only its thread may use (and of its timers'), as swift-nio's. An
    /// `assert`, so release builds pay nothing for it here; what the loop owns elsewhere is
    /// checked where it crosses threads, by `LoopBound`.
    @inline(__always)
    package func assertInEventLoop(file: StaticString = #fileID, line: UInt = #line) {
        assert(inEventLoop, "called off the thread of event loop '\(name)'", file: file, line: line)
    }

    // MARK: Loop thread only

    /// Watches `source`'s descriptor from the next turn on, across its changes.
    package func register(_ source: EventSource) -> Registration {
        assertInEventLoop()
        return selector.add(source)
    }

    /// Stops watching the source; events already queued for it are dropped.
    package func deregister(_ registration: Registration) {
        assertInEventLoop()
        // Its source is going: nobody is left to tell but the log.
        if let failure = selector.remove(registration) {
            logger.debug("descriptor \(failure.descriptor) left the epoll set with an error: \(failure.error)", ["loop": .string(name)])
        }
    }

    /// The source's descriptor, or its wish to write, may have changed: brought up to date
    /// before the loop waits again. A descriptor it no longer reports, still open, leaves the set.
    @inline(__always)
    package func update(_ registration: Registration) {
        assertInEventLoop()
        selector.update(registration)
    }

    /// The source's descriptor was closed: its number is never named to epoll again, as it may
    /// already be another source's.
    package func descriptorClosed(_ registration: Registration) {
        assertInEventLoop()
        selector.descriptorClosed(registration)
    }

    // MARK: The loop

    /// How late the kernel may wake the loop so that it can serve several deadlines with one
    /// wake-up: a fleet whose ticks are spread evenly otherwise costs a context switch per tick.
    /// Lateness stays well under the 2 ms a tick may take before it counts as late.
    package static let timerSlackNanoseconds = 500_000

    /// Timers fired before the loop looks at its descriptors again, so that a schedule running
    /// behind cannot starve reads, acknowledgements and keepalives.
    private static let timersPerTurn = 512

    private func run() {
        loopThread.store(UInt(pthread_self()), ordering: .relaxed)
        if devsim_set_timer_slack(UInt(EventLoop.timerSlackNanoseconds)) != 0 {
            logger.debug(
                "\(SystemError(call: "prctl(PR_SET_TIMERSLACK)", errno: errno)): the kernel's default slack stays", ["loop": .string(name)])
        }
        if devsim_set_thread_name(name) != 0 {
            logger.debug("\(SystemError(call: "prctl(PR_SET_NAME)", errno: errno)): the thread keeps its name", ["loop": .string(name)])
        }
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        nextHousekeeping = MonotonicClock.now() &+ EventLoop.housekeepingInterval
        while !stopping.load(ordering: .relaxed) {
            applyPending()
            let count = events.withUnsafeMutableBufferPointer { buffer in
                wait(into: buffer, nanoseconds: nanosecondsUntilNextDeadline())
            }
            for index in 0..<count {
                dispatch(events[index])
            }
            fireDueTimers()
        }
        runLastJobs()
        timers.removeAll()
    }

    private func nanosecondsUntilNextDeadline() -> UInt64 {
        let now = MonotonicClock.now()
        var deadline = nextHousekeeping
        if let earliest = timers.earliest, earliest < deadline { deadline = earliest }
        return deadline > now ? deadline - now : 0
    }

    /// Set once `epoll_pwait2` turns out to be missing (kernels before 5.11).
    private var millisecondWaitsOnly = false

    /// Waits for events at most `nanoseconds`: `epoll_pwait2`, which takes the timeout to the
    /// nanosecond; `epoll_wait`'s milliseconds, rounded up, would make every tick up to a
    /// millisecond late. Interrupted, it returns no events; any other failure of a valid epoll
    /// descriptor is a bug.
    private func wait(into buffer: UnsafeMutableBufferPointer<epoll_event>, nanoseconds: UInt64) -> Int {
        let epoll = selector.epoll
        do {
            if !millisecondWaitsOnly {
                var timeout = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
                do {
                    return Int(
                        try systemCall("epoll_pwait2", { epoll_pwait2(epoll, buffer.baseAddress, Int32(buffer.count), &timeout, nil) }) ?? 0
                    )
                } catch  where error.errno == ENOSYS {
                    millisecondWaitsOnly = true
                    logger.debug(
                        "epoll_pwait2 is missing (a kernel before 5.11): the loop waits in whole milliseconds, "
                            + "and timers may fire up to a millisecond late", ["loop": .string(name)])
                }
            }
            let milliseconds = Int32(min((nanoseconds + 999_999) / 1_000_000, UInt64(Int32.max)))
            return Int(try systemCall("epoll_wait", { epoll_wait(epoll, buffer.baseAddress, Int32(buffer.count), milliseconds) }) ?? 0)
        } catch {
            fatalError("event loop '\(name)': \(error)")
        }
    }

    /// Brings the epoll set up to date with the sources' descriptors and wishes; a source whose
    /// descriptor epoll refused hears why, once the table is consistent (it may react by
    /// changing its registration), and the log says which descriptor it was.
    @inline(__always)
    private func applyPending() {
        let failures = selector.applyPending()
        guard !failures.isEmpty else { return }
        for failure in failures {
            logger.debug("cannot watch descriptor \(failure.descriptor): \(failure.error)", ["loop": .string(name)])
            failure.source.registrationFailed(failure.error)
        }
    }

    @inline(__always)
    private func dispatch(_ event: epoll_event) {
        let key = Selector.Key(event.data)
        if key == EventLoop.wakeupKey {
            runJobs()
            return
        }
        guard let source = selector.source(for: key) else { return }
        let flags = event.events
        let hungUp = flags & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0
        if hungUp || flags & EPOLLIN.rawValue != 0 {
            source.readable(hungUp: hungUp)
        }
        // Reading may have closed, replaced or removed the descriptor: then the write is not its.
        if flags & EPOLLOUT.rawValue != 0, selector.source(for: key) != nil {
            source.writable()
        }
    }

    private func runJobs() {
        var counter: UInt64 = 0
        // EAGAIN: the counter was 0 already, and nothing is lost.
        do { _ = try systemCall("read", { read(wakeup, &counter, 8) }) } catch {
            logger.error("cannot read the event loop's wake-up counter (it may wake again at once): \(error)", ["loop": .string(name)])
        }
        let pending = jobs.withLock { jobs in
            let taken = jobs.pending
            jobs.pending.removeAll()
            return taken
        }
        for job in pending { job() }
    }

    /// Once stopping: the jobs taken after the stop's, and those they hand over in turn, still
    /// run, as they were accepted; the queue closes when none is left, in the same lock that
    /// finds it empty, so that a job is either run or refused, never dropped.
    private func runLastJobs() {
        while true {
            let pending = jobs.withLock { jobs in
                let taken = jobs.pending
                jobs.pending.removeAll()
                if taken.isEmpty { jobs.isClosed = true }
                return taken
            }
            if pending.isEmpty { return }
            for job in pending { job() }
        }
    }

    private func fireDueTimers() {
        var now = MonotonicClock.now()
        var fired = 0
        while fired < EventLoop.timersPerTurn, let timer = timers.popDue(now: now) {
            timer._withUnsafeGuaranteedRef { $0.target.timerFired($0, now: now) }
            fired += 1
            now = MonotonicClock.now()
        }
        if now >= nextHousekeeping {
            // A snapshot: a source may register, or remove, others as it goes.
            for source in selector.sources { source.housekeeping(now: now) }
            nextHousekeeping = now &+ EventLoop.housekeepingInterval
        }
    }
}
