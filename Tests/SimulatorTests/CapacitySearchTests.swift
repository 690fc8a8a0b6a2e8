import Foundation
import Reactor
import Testing
@testable import Report
@testable import Simulator

/// Issue 15, item 4: the search of `run --find-capacity`, on its own and on a virtual clock.
@Suite struct CapacitySearchTests {
    /// The multipliers a search holds against a broker that meets the SLOs below `knee`, and
    /// the answer it gives.
    private func held(knee: Double) -> (steps: [Double], passed: Double?, broke: Double?) {
        var search = CapacitySearch()
        var steps = [search.current]
        while case .hold(let multiplier) = search.stepEnded(passing: search.current < knee) {
            steps.append(multiplier)
        }
        return (steps, search.passed, search.broke)
    }

    @Test func itDoublesThenBisectsToWithinTenPercentThenHoldsTheBoundaryAgain() {
        let (steps, passed, broke) = held(knee: 6.5)
        #expect(steps == [1, 2, 4, 8, 6, 7, 6.5, 6, 6.5], "the highest pass and the lowest break, once more each")
        #expect(passed == 6 && broke == 6.5)
    }

    /// Issue 25, item 1: a confirmation that disagrees is the answer's to weigh; the bisection's
    /// bounds stay. When the highest pass breaks, the pass below it, the answer now, is held
    /// again too, before the lowest break; then the search ends.
    @Test func aConfirmationThatDisagreesHoldsTheAnswerBelowAgain() {
        var search = CapacitySearch()
        for passing in [true, true, false, true, true] { _ = search.stepEnded(passing: passing) }  // 1, 2, 4, 3, 3.5
        #expect(search.current == 3.75)
        #expect(search.stepEnded(passing: false) == .hold(multiplier: 3.5), "bounds within 10 %: the highest pass again")
        #expect(search.isConfirming && search.stepEnded(passing: false) == .hold(multiplier: 3), "it broke: the pass below")
        #expect(search.stepEnded(passing: true) == .hold(multiplier: 3.75), "then the lowest break")
        #expect(search.stepEnded(passing: true) == .finish && search.passed == 3.5 && search.broke == 3.75)
    }

    @Test(arguments: [1.01, 1.5, 3, 3.33, 17, 100, 700.5])
    func theAnswerBracketsTheKnee(knee: Double) {
        let (steps, passed, broke) = held(knee: knee)
        #expect((passed ?? .infinity) < knee && knee <= (broke ?? 0), "\(steps)")
        #expect((broke ?? .infinity) <= (passed ?? 0) * 1.1, "within 10 %: \(steps)")
        #expect(steps.count <= 22, "\(steps)")
    }

    @Test func aFirstStepThatBreaksEndsTheSearchOnceHeldAgain() {
        var search = CapacitySearch()
        #expect(search.stepEnded(passing: false) == .hold(multiplier: 1))
        #expect(search.stepEnded(passing: false) == .finish)
        #expect(search.passed == nil && search.broke == 1)
    }

    @Test func aBrokerThatNeverBreaksIsSearchedUpToTheMaximum() {
        let (steps, passed, broke) = held(knee: .infinity)
        #expect(steps.last == CapacitySearch.defaultMaximum && passed == CapacitySearch.defaultMaximum && broke == nil)
    }

    /// The recorder on a virtual clock: each step warms up, then holds, and its figures are
    /// the hold's alone; the SLO breaking names itself.
    @Test func eachStepIsJudgedOnItsHoldAlone() throws {
        let slos = [try Assertion.slo("p99<50ms"), try Assertion.slo("rate>=99%")]
        var recorder = CapacityStepper(
            settings: CapacitySettings(slos: slos, step: .seconds(10), warmUp: .seconds(2), baseRatePerSecond: 100), start: 0)
        #expect(recorder.due == nil && recorder.isConnecting)
        recorder.connected(now: 1_000_000_000)
        #expect(recorder.due == 3_000_000_000)

        var totals = Totals(), latency = Histogram()
        func reading(at seconds: UInt64) -> FigureReading {
            FigureReading(time: seconds * 1_000_000_000, totals: totals, latency: latency)
        }
        // Messages of the warm-up, slow to be acknowledged, are not the step's.
        totals[.scheduled] = 200
        totals[.published] = 200
        for _ in 0..<200 { latency.record(900_000_000) }
        #expect(recorder.record(reading(at: 3)) == (nil, nil))
        #expect(recorder.due == 13_000_000_000)
        totals[.scheduled] += 1000
        totals[.published] += 1000
        for _ in 0..<1000 { latency.record(2_000_000) }
        let (first, action) = recorder.record(reading(at: 13))
        #expect(action == .setMultiplier(2))
        #expect(first?.passed == true && first?.point.published == 1000 && first?.targetPerSecond == 100, "\(String(describing: first))")
        #expect(recorder.due == 15_000_000_000)

        _ = recorder.record(reading(at: 15))
        totals[.scheduled] += 2000
        totals[.published] += 1900
        for _ in 0..<1900 { latency.record(60_000_000) }
        totals[.buffered] = 100
        let (second, coolDown) = recorder.record(reading(at: 25))
        #expect(second?.passed == false && second?.brokenFirst == "p99<50ms", "60 ms is further past 50 ms than 95 % is short of 99 %")
        #expect(recorder.figures.brokeAt?.step == 2 && recorder.figures.capacity?.step == 1)
        // The break left messages queued: back at x1 for at least a second, until none are.
        #expect(coolDown == .coolDown && recorder.due == 26_000_000_000)
        #expect(recorder.record(reading(at: 26)) == (nil, nil) && recorder.due == 26_100_000_000)
        totals[.buffered] = 0
        let (_, next) = recorder.record(FigureReading(time: 26_100_000_000, totals: totals, latency: latency))
        #expect(next == .setMultiplier(1.5) && recorder.due == 28_100_000_000, "then the next step warms up")
    }

    /// What a connection that is down keeps (`offline: buffer`) goes out only once it is back:
    /// the cool-down after a break waits for the queues of the connections up alone, or one
    /// unreachable device would hold every broken step for the whole 30 s.
    @Test func theCoolDownWaitsForTheQueuesOfConnectionsUpAlone() throws {
        var recorder = CapacityStepper(
            settings: CapacitySettings(slos: [try Assertion.slo("p99<50ms")], step: .seconds(1), warmUp: .zero, baseRatePerSecond: 10),
            start: 0)
        recorder.connected(now: 0)
        var totals = Totals(), latency = Histogram()
        _ = recorder.record(FigureReading(time: 0))
        totals[.published] = 10
        latency.record(2_000_000)
        #expect(recorder.record(FigureReading(time: 1_000_000_000, totals: totals, latency: latency)).action == .setMultiplier(2))
        _ = recorder.record(FigureReading(time: 1_000_000_000, totals: totals, latency: latency))
        totals[.published] += 20
        for _ in 0..<20 { latency.record(60_000_000) }
        let (step, action) = recorder.record(FigureReading(time: 2_000_000_000, totals: totals, latency: latency))
        #expect(step?.passed == false && action == .coolDown && recorder.isCoolingDown, "\(String(describing: step))")
        #expect(recorder.due == 3_000_000_000, "at least a second")
        // A device that cannot reach its broker keeps 500 ticks; the connections up keep 3, then none.
        totals[.buffered] = 500
        var reading = FigureReading(time: 3_000_000_000, totals: totals)
        reading.queuedWhileUp = 3
        #expect(recorder.record(reading) == (nil, nil) && recorder.due == 3_100_000_000)
        reading = FigureReading(time: 3_100_000_000, totals: totals)
        #expect(recorder.record(reading) == (nil, nil), "without the loops' answer, every queue counts")
        reading.time = 3_200_000_000
        reading.queuedWhileUp = 0
        #expect(recorder.record(reading).action == .setMultiplier(1.5) && !recorder.isCoolingDown, "the outage's 500 are not waited for")
    }

    /// With a `lost` SLO the hold counts what it publishes, and the step is judged once the
    /// last of it arrived, or nothing more arrived for half a second, still at the step's rate.
    @Test func aLostSLOWaitsForTheStepsMessages() throws {
        var recorder = CapacityStepper(
            settings: CapacitySettings(
                slos: [try Assertion.slo("lost==0"), try Assertion.slo("p99<50ms")], step: .seconds(1), warmUp: .seconds(1),
                baseRatePerSecond: 10),
            start: 0)
        recorder.connected(now: 0)
        var totals = Totals(), latency = Histogram()
        func reading(_ time: UInt64, published: Int, received: Int?) -> FigureReading {
            var reading = FigureReading(time: time, totals: totals, latency: latency)
            reading.stepLoss = received.map { StepLoss(published: published, received: $0) }
            return reading
        }
        #expect(recorder.record(reading(1_000_000_000, published: 0, received: nil)).action == .openStepWindows)
        totals[.published] = 10
        latency.record(2_000_000)
        #expect(recorder.record(reading(2_000_000_000, published: 0, received: nil)) == (nil, .closeStepWindows))
        #expect(recorder.isAwaitingArrivals && recorder.due == 2_100_000_000)
        // Arrivals come in; the fleet is still at the step's rate, and its later figures are not the step's.
        totals[.published] = 30
        #expect(recorder.record(reading(2_100_000_000, published: 10, received: 8)) == (nil, nil))
        let (first, next) = recorder.record(reading(2_200_000_000, published: 10, received: 10))
        #expect(first?.passed == true && first?.loss == StepLoss(published: 10, received: 10) && first?.point.published == 10)
        #expect(next == .setMultiplier(2) && recorder.due == 3_200_000_000)

        #expect(recorder.record(reading(3_200_000_000, published: 0, received: nil)).action == .openStepWindows)
        totals[.published] += 20
        #expect(recorder.record(reading(4_200_000_000, published: 0, received: nil)).action == .closeStepWindows)
        // Two never come: after 0.5 s with nothing new, they are lost.
        var time: UInt64 = 4_300_000_000
        #expect(recorder.record(reading(time, published: 20, received: 18)) == (nil, nil))
        while time < 4_700_000_000 {
            time += 100_000_000
            #expect(recorder.record(reading(time, published: 20, received: 18)) == (nil, nil), "\(time)")
        }
        let (second, action) = recorder.record(reading(4_800_000_000, published: 20, received: 18))
        #expect(second?.passed == false && second?.brokenFirst == "lost==0" && second?.loss?.lost == 2, "\(String(describing: second))")
        #expect(second?.verdicts.first?.message == "2 (2 over)" && action == .coolDown)
    }

    /// Arrivals that never stop (a broker delivering a backlog) end the wait at five seconds.
    @Test func theWaitForAStepsMessagesIsBounded() throws {
        var recorder = CapacityStepper(
            settings: CapacitySettings(slos: [try Assertion.slo("lost<=1%")], step: .seconds(1), warmUp: .zero, baseRatePerSecond: 10),
            start: 0)
        recorder.connected(now: 0)
        var totals = Totals()
        #expect(recorder.record(FigureReading(time: 0)).action == .openStepWindows)
        totals[.published] = 1000
        #expect(recorder.record(FigureReading(time: 1_000_000_000, totals: totals)).action == .closeStepWindows)
        var time: UInt64 = 1_000_000_000, received = 0
        var closed: CapacityStep?
        while closed == nil, time < 10_000_000_000 {
            time += 100_000_000
            received += 1
            var reading = FigureReading(time: time, totals: totals)
            reading.stepLoss = StepLoss(published: 1000, received: received)
            closed = recorder.record(reading).closed
        }
        #expect(time == 6_000_000_000 && closed?.loss?.lost == 950, "\(time): \(String(describing: closed))")
        #expect(closed?.verdicts.first?.message == "95% (94 points over)", "a share of what the step published")
    }

    /// A run that ends while a step's messages are awaited still judges the step, on what
    /// arrived by the run's settle; and a step none of whose messages had a number to count
    /// by does not pass `lost==0` on nothing.
    @Test func aStepAwaitedWhenTheRunEndsIsJudgedAndOneWithNothingCountedBreaks() throws {
        func recorder() throws -> CapacityStepper {
            var recorder = CapacityStepper(
                settings: CapacitySettings(slos: [try Assertion.slo("lost==0")], step: .seconds(1), warmUp: .zero, baseRatePerSecond: 10),
                start: 0)
            recorder.connected(now: 0)
            _ = recorder.record(FigureReading(time: 0))
            var totals = Totals()
            totals[.published] = 10
            _ = recorder.record(FigureReading(time: 1_000_000_000, totals: totals))
            return recorder
        }
        var ending = try recorder()
        #expect(ending.isAwaitingArrivals)
        var reading = FigureReading(time: 1_200_000_000)
        reading.stepLoss = StepLoss(published: 10, received: 10)
        let judged = ending.runEnded(reading)
        #expect(judged?.passed == true && judged?.loss?.received == 10 && ending.due == nil && ending.figures.steps.count == 1)

        var unnumbered = try recorder()
        reading.stepLoss = StepLoss.none
        let (step, _) = unnumbered.record(reading)
        #expect(step?.passed == false && step?.verdicts.last?.assertion == "lost counted", "\(String(describing: step))")
    }

    /// A fleet down for a whole step measured nothing: its empty lateness must not pass it.
    @Test func aStepThatPublishedNothingBreaks() throws {
        var recorder = CapacityStepper(
            settings: CapacitySettings(
                slos: [try Assertion.slo("lateness.p99<5ms")], step: .seconds(1), warmUp: .zero, baseRatePerSecond: 10),
            start: 0)
        recorder.connected(now: 0)
        _ = recorder.record(FigureReading(time: 0))
        let (step, action) = recorder.record(FigureReading(time: 1_000_000_000))
        #expect(step?.passed == false && action == .coolDown, "then held again: \(String(describing: step))")
        #expect(step?.verdicts.last?.assertion == "published>0")
    }

    @Test func excessComparesHowFarEachSLOIsPastItsLimit() throws {
        #expect(try Assertion.slo("p99<50ms").excess(62) == 1.24)
        #expect(try Assertion.slo("rate>=99%").excess(49.5) == 2)
        #expect(try Assertion.slo("p99<50ms").excess(nil) == .infinity)
    }
}
