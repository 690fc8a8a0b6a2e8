import Glibc
import Reactor
import Synchronization
import Testing

/// Issue 26, item 6: a loop that has stopped refuses work instead of dropping it, and every job
/// it took before runs.
@Suite struct EventLoopStopTests {
    @Test func aStoppedLoopRefusesAJobAndNeverRunsIt() throws {
        let loop = try EventLoop(name: "stopped")
        try loop.start()
        loop.stop()
        let ran = Atomic<Bool>(false)
        do {
            try loop.submit { ran.store(true, ordering: .relaxed) }
            Issue.record("a stopped loop took a job")
        } catch {
            #expect(error.description == "event loop 'stopped' has stopped: it runs no more jobs")
        }
        usleep(20_000)
        #expect(ran.load(ordering: .relaxed) == false)
    }

    @Test func stoppingTwiceLeavesAStoppedLoopAsItIs() throws {
        let loop = try EventLoop(name: "twice")
        try loop.start()
        loop.stop()
        loop.stop()
        #expect(throws: EventLoopStopped.self) { try loop.submit {} }
    }

    @Test func jobsHandedOverBeforeTheStopAndThoseTheyHandOverAllRun() throws {
        let loop = try EventLoop(name: "last-jobs")
        try loop.start()
        let ran = Locked<[String]>([])
        loop.execute {
            ran.withLock { $0.append("first") }
            // Handed over by a job of the loop's own, after the stop was asked: still taken.
            usleep(20_000)
            loop.execute { ran.withLock { $0.append("handed over by the first") } }
        }
        loop.stop()
        #expect(ran.withLock { $0 } == ["first", "handed over by the first"])
    }

    /// Jobs from several threads racing the stop: each is either run or refused, none dropped.
    @Test func everyJobRacingTheStopIsRunOrRefused() throws {
        for round in 0..<20 {
            let loop = try EventLoop(name: "race-\(round)")
            try loop.start()
            let accepted = Atomic<Int>(0)
            let refused = Atomic<Int>(0)
            let ran = Atomic<Int>(0)
            let threads = try (0..<3).map { _ in
                try JoinableThread {
                    for _ in 0..<2_000 {
                        do {
                            try loop.submit { ran.add(1, ordering: .relaxed) }
                            accepted.add(1, ordering: .relaxed)
                        } catch {
                            refused.add(1, ordering: .relaxed)
                        }
                    }
                }
            }
            usleep(UInt32(round % 5) * 200)
            loop.stop()
            for thread in threads { thread.join() }
            #expect(accepted.load(ordering: .relaxed) + refused.load(ordering: .relaxed) == 6_000)
            #expect(ran.load(ordering: .relaxed) == accepted.load(ordering: .relaxed), "round \(round)")
        }
    }
}
