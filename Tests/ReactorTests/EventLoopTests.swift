import Glibc
import Reactor
import Synchronization
import Testing

/// A socketpair end as an event source: counts what it is told, reads what arrives.
private final class PairEnd: EventSource, @unchecked Sendable {
    let descriptor: Int32
    var wantsWrite = false
    let reads = Atomic<Int>(0)
    let writes = Atomic<Int>(0)
    let hangUps = Atomic<Int>(0)
    var onReadable: (() -> Void)?

    init(_ descriptor: Int32) { self.descriptor = descriptor }

    func readable(hungUp: Bool) {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(descriptor, &buffer, buffer.count)
        if hungUp || count == 0 { hangUps.add(1, ordering: .relaxed) }
        if count > 0 { reads.add(1, ordering: .relaxed) }
        onReadable?()
    }

    func writable() { writes.add(1, ordering: .relaxed) }
    func registrationFailed(_ error: SystemError) {}
}

/// Fires into a list, on the loop's thread.
private final class Alarm: TimerTarget, @unchecked Sendable {
    let order = Locked<[Int]>([])
    var timers: [Timer] = []

    func timerFired(_ timer: Timer, now: UInt64) {
        let index = timers.firstIndex { $0 === timer }!
        order.withLock { $0.append(index) }
    }
}

private func socketPair() -> (Int32, Int32) {
    var fds: [Int32] = [0, 0]
    precondition(
        socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
    return (fds[0], fds[1])
}

/// Waits up to 5 s for `condition`, polling.
private func eventually(_ condition: () -> Bool) -> Bool {
    for _ in 0..<500 {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

@Suite struct EventLoopTests {
    @Test func jobsFromOtherThreadsRunOnTheLoopInOrder() throws {
        let loop = try EventLoop(name: "jobs")
        try loop.start()
        defer { loop.stop() }
        let seen = Locked<[Int]>([])
        let onLoop = Atomic<Int>(0)
        for index in 0..<100 {
            loop.execute {
                if loop.inEventLoop { onLoop.add(1, ordering: .relaxed) }
                seen.withLock { $0.append(index) }
            }
        }
        #expect(!loop.inEventLoop)
        #expect(eventually { seen.withLock { $0.count } == 100 })
        #expect(seen.withLock { $0 } == Array(0..<100))
        #expect(onLoop.load(ordering: .relaxed) == 100)
    }

    @Test func timersFireByDeadlineAndACancelledOneNever() throws {
        let loop = try EventLoop(name: "timers")
        let alarm = Alarm()
        alarm.timers = (0..<4).map { _ in Timer(on: loop, target: alarm) }
        try loop.start()
        defer { loop.stop() }
        loop.execute {
            let now = MonotonicClock.now()
            alarm.timers[0].schedule(at: now &+ 30_000_000)
            alarm.timers[1].schedule(at: now &+ 10_000_000)
            alarm.timers[2].schedule(at: now &+ 20_000_000)
            alarm.timers[3].schedule(at: now &+ 15_000_000)
            alarm.timers[3].cancel()
        }
        #expect(eventually { alarm.order.withLock { $0.count } == 3 })
        usleep(30_000)
        #expect(alarm.order.withLock { $0 } == [1, 2, 0])
    }

    @Test func aReadableSourceIsToldAndAWritableOneWhenItWantsTo() throws {
        let loop = try EventLoop(name: "io")
        let (a, b) = socketPair()
        defer {
            close(a)
            close(b)
        }
        let source = PairEnd(a)
        try loop.start()
        defer { loop.stop() }
        loop.execute { _ = loop.register(source) }
        #expect(write(b, "x", 1) == 1)
        #expect(eventually { source.reads.load(ordering: .relaxed) == 1 })
        #expect(source.writes.load(ordering: .relaxed) == 0, "not watched for writing unless it wants to")
        loop.execute {
            source.wantsWrite = true
            loop.update(loop.register(source))
        }
        #expect(eventually { source.writes.load(ordering: .relaxed) > 0 })
    }

    @Test func aSourceRemovedWhileReadableHearsNothingMore() throws {
        let loop = try EventLoop(name: "removal")
        let (a, b) = socketPair()
        let (c, d) = socketPair()
        defer { [a, b, c, d].forEach { close($0) } }
        let first = PairEnd(a), second = PairEnd(c)
        try loop.start()
        defer { loop.stop() }
        // Both readable in the same turn; whichever is told first removes the other.
        let registrations = Locked<[EventLoop.Registration]>([])
        loop.execute {
            let one = loop.register(first), two = loop.register(second)
            registrations.withLock { $0 = [one, two] }
            first.onReadable = { loop.deregister(two) }
            second.onReadable = { loop.deregister(one) }
        }
        #expect(eventually { registrations.withLock { $0.count } == 2 })
        _ = write(b, "x", 1)
        _ = write(d, "y", 1)
        #expect(eventually { first.reads.load(ordering: .relaxed) + second.reads.load(ordering: .relaxed) >= 1 })
        usleep(50_000)
        // The removed one's data stays unread (nobody reads it), and it is never told again.
        #expect(first.reads.load(ordering: .relaxed) + second.reads.load(ordering: .relaxed) == 1)
    }

    @Test func aClosedDescriptorWhoseNumberIsReusedIsNotMistakenForTheOld() throws {
        let loop = try EventLoop(name: "reuse")
        let (a, b) = socketPair()
        defer { close(b) }
        let old = PairEnd(a)
        try loop.start()
        defer { loop.stop() }
        let registered = Atomic<Bool>(false)
        loop.execute {
            let registration = loop.register(old)
            registered.store(true, ordering: .relaxed)
            // Closed by its owner: the number goes back to the kernel.
            close(a)
            loop.descriptorClosed(registration)
        }
        #expect(eventually { registered.load(ordering: .relaxed) })
        usleep(20_000)
        let (c, d) = socketPair()  // likely given a's number
        defer {
            close(c)
            close(d)
        }
        let newcomer = PairEnd(c)
        loop.execute { _ = loop.register(newcomer) }
        _ = write(d, "z", 1)
        #expect(eventually { newcomer.reads.load(ordering: .relaxed) == 1 })
        #expect(old.reads.load(ordering: .relaxed) == 0)
    }
}

/// Asks for an update of its registration from its housekeeping, as an MQTT client does.
private final class Keeper: EventSource, @unchecked Sendable {
    let descriptor: Int32
    var wantsWrite: Bool { false }
    var registration: EventLoop.Registration?
    unowned(unsafe) var loop: EventLoop?
    let rounds = Atomic<Int>(0)

    init(_ descriptor: Int32) { self.descriptor = descriptor }
    func readable(hungUp: Bool) {}
    func housekeeping(now: UInt64) {
        rounds.add(1, ordering: .relaxed)
        if let registration { loop?.update(registration) }
    }
    func registrationFailed(_ error: SystemError) {}
}

extension EventLoopTests {
    @Test func housekeepingComesAboutOnceASecondAndMayUpdateTheRegistration() throws {
        let loop = try EventLoop(name: "housekeeping")
        let (a, b) = socketPair()
        let (c, d) = socketPair()
        defer { [a, b, c, d].forEach { close($0) } }
        let keepers = [Keeper(a), Keeper(c)]
        try loop.start()
        defer { loop.stop() }
        loop.execute {
            for keeper in keepers {
                keeper.loop = loop
                keeper.registration = loop.register(keeper)
            }
        }
        #expect(eventually { keepers.allSatisfy { $0.rounds.load(ordering: .relaxed) >= 1 } })
        let ran = Atomic<Bool>(false)
        loop.execute { ran.store(true, ordering: .relaxed) }
        #expect(eventually { ran.load(ordering: .relaxed) }, "the loop still runs jobs after housekeeping")
    }
}
