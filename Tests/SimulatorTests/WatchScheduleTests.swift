import Dispatch
import Reactor
import Synchronization
import TestSupport
import Testing

@testable import Simulator

/// The watching thread's schedule (issue 26, item 4): jobs with their own due times and
/// cadences, the order of those due at one wake, and a watch that sleeps until the next one,
/// all on a virtual clock.
@Suite struct WatchScheduleTests {
    private let second: UInt64 = 1_000_000_000

    @Test func jobsDueAtOneWakeRunInTheOrderTheyWereAdded() {
        var schedule = WatchSchedule<String>()
        schedule.add("probes", at: 0, .every(5 * second))
        schedule.add("end", at: 5 * second, .once)
        schedule.add("connect deadline", at: 5 * second, .once)
        schedule.add("status", at: 5 * second, .catchingUp(5 * second))
        #expect(schedule.takeDue(at: 0) == ["probes"])
        #expect(schedule.takeDue(at: 5 * second - 1) == [])
        #expect(schedule.takeDue(at: 5 * second) == ["probes", "end", "connect deadline", "status"])
    }

    @Test func nothingIsDueBeforeItsTimeAndTheWaitIsUntilTheEarliest() {
        var schedule = WatchSchedule<String>()
        schedule.add("status", at: 3 * second, .catchingUp(3 * second))
        schedule.add("deadline", at: 2 * second, .once)
        schedule.add("never", at: nil, .once)
        #expect(schedule.nextDue == 2 * second)
        #expect(schedule.wait(from: second / 2) == 3 * second / 2)
        #expect(schedule.takeDue(at: second) == [])
        #expect(schedule.wait(from: 4 * second) == 0, "one due already is due at once")
        #expect(schedule.takeDue(at: 4 * second) == ["status", "deadline"])
        #expect(schedule.nextDue == 6 * second)
    }

    @Test func aJobOnceIsDoneAfterItRuns() {
        var schedule = WatchSchedule<String>()
        schedule.add("end", at: second, .once)
        #expect(schedule.takeDue(at: 2 * second) == ["end"])
        #expect(schedule.due(of: "end") == nil)
        #expect(schedule.nextDue == nil)
        #expect(schedule.wait(from: 2 * second) == nil, "nothing to wait for: sleep until woken")
        #expect(schedule.takeDue(at: 10 * second) == [])
    }

    @Test func aJobEveryPeriodStaysInStepAndSkipsWhatItMissed() {
        var schedule = WatchSchedule<String>()
        schedule.add("probes", at: 10, .every(second))
        #expect(schedule.takeDue(at: 10 + second / 4) == ["probes"])
        #expect(schedule.due(of: "probes") == 10 + second, "counted from when it was due, not when it ran")
        // Held up for three and a half periods: next due at its next step, once.
        #expect(schedule.takeDue(at: 10 + 4 * second + second / 2) == ["probes"])
        #expect(schedule.due(of: "probes") == 10 + 5 * second)
        #expect(schedule.takeDue(at: 10 + 5 * second - 1) == [])
    }

    @Test func aJobCatchingUpRunsOncePerPeriodOverTheRun() {
        var schedule = WatchSchedule<String>()
        schedule.add("status", at: second, .catchingUp(second))
        var runs = 0
        // The watching thread held up until 4.5 s: the lines it missed come at once, one a wake.
        while !schedule.takeDue(at: 4 * second + second / 2).isEmpty { runs += 1 }
        #expect(runs == 4)
        #expect(schedule.due(of: "status") == 5 * second)
    }

    @Test func aJobAfterItsPeriodCountsFromWhenItRan() {
        var schedule = WatchSchedule<String>()
        schedule.add("pace", at: 0, .after(second))
        #expect(schedule.takeDue(at: 300) == ["pace"])
        #expect(schedule.due(of: "pace") == 300 + second)
    }

    @Test func aJobAsItSaysWaitsForItsWorkToSayWhen() {
        var schedule = WatchSchedule<String>()
        schedule.add("timeline", at: 0, .asItSays)
        #expect(schedule.takeDue(at: 0) == ["timeline"])
        #expect(schedule.due(of: "timeline") == nil)
        schedule.reschedule("timeline", at: 2 * second)
        #expect(schedule.nextDue == 2 * second)
        #expect(schedule.takeDue(at: 2 * second) == ["timeline"])
        schedule.reschedule("timeline", at: nil)
        #expect(schedule.nextDue == nil)
    }

    /// A virtual clock that a sleep moves on, and what the watch did, in order.
    private final class Watch {
        var now: UInt64 = 0
        var sleeps: [UInt64?] = []
        var ran: [(String, UInt64)] = []
        var stop: String?

        /// Watches `schedule` on this clock, which each sleep moves on by all it asked for,
        /// noting the sleeps and each job run, when; `work` says what the job did.
        func watch(_ schedule: inout WatchSchedule<String>, _ work: (String, UInt64) -> WatchOutcome<String>) -> String {
            schedule.watch(
                clock: { now }, stopReason: { stop },
                sleep: { nanoseconds in
                    sleeps.append(nanoseconds)
                    now += nanoseconds ?? 0
                }
            ) { job, time in
                ran.append((job, time))
                return work(job, time)
            }
        }
    }

    @Test func theWatchSleepsUntilTheNextJobAndNeverPolls() {
        var schedule = WatchSchedule<String>()
        schedule.add("probes", at: 0, .every(second))
        schedule.add("end", at: 5 * second, .once)
        schedule.add("status", at: 2 * second, .catchingUp(2 * second))
        let watch = Watch()
        let reason = watch.watch(&schedule) { job, _ in job == "end" ? .end("duration") : .done }
        #expect(reason == "duration")
        #expect(watch.sleeps == Array(repeating: second, count: 5), "one wake a second, for the probes")
        #expect(
            watch.ran.map { "\($0.0)@\($0.1 / second)" } == [
                "probes@0", "probes@1", "probes@2", "status@2", "probes@3", "probes@4", "status@4", "probes@5", "end@5",
            ])
    }

    @Test func aStopComesBeforeAnyJobDueAtTheSameWake() {
        var schedule = WatchSchedule<String>()
        schedule.add("end", at: second, .once)
        let watch = Watch()
        let reason = schedule.watch(
            clock: { watch.now }, stopReason: { watch.stop },
            sleep: { nanoseconds in
                // Asked while the thread slept, which wakes it at the time the end is due too.
                watch.now += nanoseconds ?? 0
                watch.stop = "requested"
            }
        ) { job, _ in
            watch.ran.append((job, watch.now))
            return .end("duration")
        }
        #expect(reason == "requested")
        #expect(watch.ran.isEmpty)
    }

    @Test func aWakeWithNothingDueRunsNothingAndSleepsForWhatIsLeft() {
        var schedule = WatchSchedule<String>()
        schedule.add("status", at: 10 * second, .catchingUp(10 * second))
        let watch = Watch()
        var wakes = 0
        let reason = schedule.watch(
            clock: { watch.now }, stopReason: { watch.stop },
            sleep: { nanoseconds in
                watch.sleeps.append(nanoseconds)
                wakes += 1
                // Woken early twice (another event than a stop), then sleeps its full time.
                watch.now += wakes <= 2 ? second : nanoseconds ?? 0
            }
        ) { job, now in
            watch.ran.append((job, now))
            return .end("done")
        }
        #expect(reason == "done")
        #expect(watch.sleeps == [10 * second, 9 * second, 8 * second])
        #expect(watch.ran.count == 1)
    }

    @Test func aJobsWorkSetsItsNextTime() {
        var schedule = WatchSchedule<String>()
        schedule.add("capacity", at: 0, .asItSays)
        let watch = Watch()
        let reason = watch.watch(&schedule) { _, now in
            // Polls every 20 ms while connecting, then a step of 3 s, then the search is over.
            return switch watch.ran.count {
            case 1, 2: .dueAgain(now + 20_000_000)
            case 3: .dueAgain(now + 3 * second)
            default: .end("searched")
            }
        }
        #expect(reason == "searched")
        #expect(watch.sleeps == [20_000_000, 20_000_000, 3 * second])
    }

    /// What `Fleet.waitForEnd` sleeps in: a stop asked for while it sleeps wakes it at once,
    /// not when its next job is due.
    @Test func aStopWakesTheWatchingThreadAtOnce() {
        let control = RunControl(messages: nil, logger: Logger(sink: { _ in }))
        let woke = Atomic<UInt64>(0)
        let asleep = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            asleep.signal()
            // Long beyond any stall of a loaded machine: only the stop can end it in time.
            control.wait(seconds: 600)
            woke.store(MonotonicClock.now(), ordering: .relaxed)
        }
        asleep.wait()
        TestClock.sleep(0.05)
        let stopped = MonotonicClock.now()
        control.stop(.requested)
        #expect(TestClock.wait(timeout: 30, interval: 0.001) { woke.load(ordering: .relaxed) != 0 })
        // Blocking waits, not an async test's sleeps: a continuation of the cooperative pool
        // can wait behind other tests' blocking calls longer than the thread's wait (it did, for
        // over a minute, in a full suite on 2 cores).
        let at = woke.load(ordering: .relaxed)
        #expect(at >= stopped && at &- stopped < 10 * second, "woke \(Int64(bitPattern: at &- stopped)) ns after the stop")
    }
}
