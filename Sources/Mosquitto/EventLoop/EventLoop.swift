import CLinux
import Glibc
import Synchronization

/// A thread that drives many `Client`s: a level-triggered epoll for their sockets, a heap of
/// absolute deadlines for timers, and an eventfd through which other threads hand it work.
///
/// Everything a loop owns (its clients, their devices, its timers) is touched only on its thread,
/// so the publish path takes no locks. Other threads reach it only through `execute(_:)`.
public final class EventLoop: @unchecked Sendable {
    public let name: String
    private let epoll: Int32
    private let wakeup: Int32
    private var thread: pthread_t?
    private let stopping = Atomic<Bool>(false)
    private let jobs = Mutex<[@Sendable () -> Void]>([])

    // Confined to the loop thread.
    private var timers = DeadlineHeap()
    private var clients: [Client] = []
    private var dirty: [Client] = []
    private var nextMisc: UInt64 = 0

    private static let wakeupKey = UInt64.max
    private static let miscInterval: UInt64 = 1_000_000_000

    public init(name: String) throws(SystemError) {
        self.name = name
        epoll = try retryingInterrupts("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        let wakeup = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wakeup >= 0 else {
            let error = SystemError(call: "eventfd", errno: errno)
            close(epoll)
            throw error
        }
        self.wakeup = wakeup
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(u64: EventLoop.wakeupKey))
        _ = epoll_ctl(epoll, EPOLL_CTL_ADD, wakeup, &event)
    }

    deinit {
        close(wakeup)
        close(epoll)
    }

    // MARK: Any thread

    /// Starts the loop's thread.
    public func start() throws(SystemError) {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { context in
            let loop = Unmanaged<EventLoop>.fromOpaque(context!).takeRetainedValue()
            loop.run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<EventLoop>.fromOpaque(context).release()
            throw SystemError(call: "pthread_create", errno: rc)
        }
        self.thread = thread
    }

    /// Runs `job` on the loop's thread, soon.
    public func execute(_ job: @escaping @Sendable () -> Void) {
        jobs.withLock { $0.append(job) }
        var one: UInt64 = 1
        _ = write(wakeup, &one, 8)
    }

    /// Ends the loop after the jobs already handed to it, and waits for its thread.
    public func stop() {
        execute { [self] in stopping.store(true, ordering: .relaxed) }
        if let thread {
            pthread_join(thread, nil)
            self.thread = nil
        }
    }

    // MARK: Loop thread only

    /// Calls `target.timerFired(tag:now:)` at `deadline` (monotonic nanoseconds) or soon after.
    public func schedule(at deadline: UInt64, target: TimerTarget, tag: Int = 0) {
        timers.insert(deadline: deadline, target: target, tag: tag)
    }

    /// Makes the loop drive `client`: its socket is watched from now on, across reconnections.
    public func add(_ client: Client) {
        client.slot = clients.count
        clients.append(client)
        client.socketChanged = true
        markDirty(client)
    }

    /// Tells the loop that `client` may have something to write or a new socket; its epoll
    /// registration is brought up to date before the loop waits again.
    @inline(__always)
    public func markDirty(_ client: Client) {
        dirty.append(client)
    }

    // MARK: The loop

    /// How late the kernel may wake the loop so that it can serve several deadlines with one
    /// wake-up: a fleet whose ticks are spread evenly otherwise costs a context switch per tick.
    /// Lateness stays well under the 2 ms a tick may take before it counts as late.
    public static let timerSlackNanoseconds = 500_000

    private func run() {
        _ = devsim_set_timer_slack(UInt(EventLoop.timerSlackNanoseconds))
        _ = devsim_set_thread_name(name)
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        nextMisc = MonotonicClock.now() &+ EventLoop.miscInterval
        while !stopping.load(ordering: .relaxed) {
            refreshDirtyClients()
            let count = events.withUnsafeMutableBufferPointer { buffer in
                wait(into: buffer, nanoseconds: nanosecondsUntilNextDeadline())
            }
            if count > 0 {
                for index in 0..<Int(count) {
                    handle(events[index])
                }
            }
            fireDueTimers()
        }
        timers.removeAll()
        clients.removeAll()
        dirty.removeAll()
    }

    private func nanosecondsUntilNextDeadline() -> UInt64 {
        let now = MonotonicClock.now()
        var deadline = nextMisc
        if let earliest = timers.earliest, earliest < deadline { deadline = earliest }
        return deadline > now ? deadline - now : 0
    }

    /// Set once `epoll_pwait2` turns out to be missing (kernels before 5.11).
    private var millisecondWaitsOnly = false

    /// Waits for events at most `nanoseconds`. `epoll_pwait2` takes the timeout to the
    /// nanosecond; `epoll_wait`'s milliseconds, rounded up, would make every tick up to a
    /// millisecond late.
    private func wait(into buffer: UnsafeMutableBufferPointer<epoll_event>, nanoseconds: UInt64) -> Int32 {
        if !millisecondWaitsOnly {
            var timeout = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
            let count = epoll_pwait2(epoll, buffer.baseAddress, Int32(buffer.count), &timeout, nil)
            if count >= 0 || errno != ENOSYS { return count }
            millisecondWaitsOnly = true
        }
        let milliseconds = Int32(min((nanoseconds + 999_999) / 1_000_000, UInt64(Int32.max)))
        return epoll_wait(epoll, buffer.baseAddress, Int32(buffer.count), milliseconds)
    }

    private func handle(_ event: epoll_event) {
        let key = event.data.u64
        if key == EventLoop.wakeupKey {
            runJobs()
            return
        }
        let slot = Int(key >> 32)
        let socket = Int32(truncatingIfNeeded: key & 0xFFFF_FFFF)
        guard slot < clients.count else { return }
        let client = clients[slot]
        guard client.registeredSocket == socket, !client.socketChanged else { return }
        let flags = event.events
        let wasBackedUp = client.wantsWrite
        let hungUp = flags & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0
        if hungUp || flags & EPOLLIN.rawValue != 0 {
            client.loopRead(hungUp: hungUp)
        }
        if flags & EPOLLOUT.rawValue != 0, !client.socketChanged, client.registeredSocket == client.socket {
            // A TLS handshake that waits for room to write (a TCP connect still under way when it
            // began) advances in `mosquitto_loop_read` only: `mosquitto_loop_write` leaves it be,
            // and its want-write would hold EPOLLOUT up, spinning, until the CONNACK timeout.
            if client.awaitsConnack, client.options.tls != nil { client.loopRead() }
            if !client.socketChanged { client.loopWrite() }
        }
        tellIfDrained(client, wasBackedUp: wasBackedUp)
        markDirty(client)
    }

    /// The socket took everything libmosquitto had queued: whoever waited for room may write
    /// again. Any call into libmosquitto can drain it, not only a write on EPOLLOUT: a read
    /// that answers with a packet, or a keepalive PINGREQ, writes the backlog ahead of it.
    private func tellIfDrained(_ client: Client, wasBackedUp: Bool) {
        if wasBackedUp, !client.socketChanged, !client.wantsWrite {
            client.delegate?.clientCanWrite(client)
        }
    }

    private func runJobs() {
        var counter: UInt64 = 0
        _ = read(wakeup, &counter, 8)
        let pending = jobs.withLock { jobs in
            let taken = jobs
            jobs.removeAll()
            return taken
        }
        for job in pending { job() }
    }

    /// Timers fired before the loop looks at its sockets again, so that a schedule running behind
    /// cannot starve reads, acknowledgements and keepalives.
    private static let timersPerTurn = 512

    private func fireDueTimers() {
        var now = MonotonicClock.now()
        var fired = 0
        while fired < EventLoop.timersPerTurn, let entry = timers.popDue(now: now) {
            entry.target.timerFired(tag: entry.tag, now: now)
            fired += 1
            now = MonotonicClock.now()
        }
        if now >= nextMisc {
            for client in clients where client.registeredSocket >= 0 && !client.isDetached {
                let wasBackedUp = client.wantsWrite
                client.loopMisc()
                tellIfDrained(client, wasBackedUp: wasBackedUp)
                markDirty(client)
            }
            nextMisc = now &+ EventLoop.miscInterval
        }
    }

    private func refreshDirtyClients() {
        guard !dirty.isEmpty else { return }
        for client in dirty where client.slot >= 0 {
            refreshRegistration(client)
        }
        dirty.removeAll(keepingCapacity: true)
    }

    /// Brings `client`'s epoll registration in line with its socket and `mosquitto_want_write`.
    /// A replaced socket is never removed by number: libmosquitto closed it, which removed it
    /// from the epoll set, and the number may already belong to another client.
    /// A detached client's socket is still open, and still libmosquitto's: it is removed from the
    /// epoll set, or its hang-up would wake the loop until the next attempt closes it.
    private func refreshRegistration(_ client: Client) {
        let socket = client.isDetached ? -1 : client.socket
        if client.socketChanged {
            if client.isDetached, client.registeredSocket >= 0, client.registeredSocket == client.socket {
                _ = epoll_ctl(epoll, EPOLL_CTL_DEL, client.registeredSocket, nil)
            }
            client.socketChanged = false
            client.registeredSocket = -1
        }
        guard socket >= 0 else {
            client.registeredSocket = -1
            return
        }
        let wantsWrite = client.wantsWrite
        if client.registeredSocket == socket, client.registeredForWrite == wantsWrite { return }
        var mask = EPOLLIN.rawValue
        if wantsWrite { mask |= EPOLLOUT.rawValue }
        var event = epoll_event(events: mask, data: epoll_data_t(u64: UInt64(client.slot) << 32 | UInt64(UInt32(bitPattern: socket))))
        if client.registeredSocket == socket {
            _ = epoll_ctl(epoll, EPOLL_CTL_MOD, socket, &event)
        } else if epoll_ctl(epoll, EPOLL_CTL_ADD, socket, &event) != 0, errno == EEXIST {
            _ = epoll_ctl(epoll, EPOLL_CTL_MOD, socket, &event)
        }
        client.registeredSocket = socket
        client.registeredForWrite = wantsWrite
    }
}
