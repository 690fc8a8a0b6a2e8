import Reactor
import Testing
@testable import Report
@testable import Simulator

/// Issue 25, item 1: a capacity step names what held it back, the broker or the load generator
/// or its machine, from devsim's own load over the hold; and the answer says how sure it is.
@Suite struct StepHeadroomTests {
    /// A reading `seconds` into a run with two loops, on a machine of two cores.
    private func load(
        at seconds: UInt64, loops: [UInt64] = [0, 0], cpu: UInt64 = 0, busy: UInt64 = 0, steal: UInt64 = 0, total: UInt64 = 0,
        delays: [UInt64] = []
    ) -> GeneratorLoad {
        var machine = CPUTime.Machine()
        (machine.busy, machine.steal, machine.total) = (busy, steal, total)
        var histogram = Histogram()
        for delay in delays { histogram.record(delay) }
        return GeneratorLoad(
            time: seconds * 1_000_000_000, cores: 2, loopsCPU: loops, processCPU: cpu, machine: machine, schedulingDelay: histogram)
    }

    @Test func theHeadroomIsTheHoldsShareOfEachResource() {
        let start = load(at: 10, loops: [1_000_000_000, 0], cpu: 3_000_000_000, busy: 100, total: 1000, delays: [50_000])
        let end = load(
            at: 20, loops: [10_700_000_000, 4_000_000_000], cpu: 13_000_000_000, busy: 1100, steal: 30, total: 3000,
            delays: [50_000] + Array(repeating: 100_000, count: 98) + [9_000_000, 9_000_000])
        let headroom = StepHeadroom(from: start, to: end)
        #expect(headroom.busiestLoopPercent == 97, "9.7 s of CPU time in 10")
        #expect(headroom.processCPUPercent == 50, "10 s of CPU over 10 s of two cores")
        #expect(headroom.machineCPUPercent == 51.5 && headroom.stealPercent == 1.5, "(1000 + 30) of 2000 ticks")
        let delay = try! #require(headroom.schedulingDelayP99Ms)
        #expect(abs(delay - 9) < 9 * 0.02, "the probe's p99 over the hold alone: \(delay)")
    }

    @Test(arguments: [
        (StepHeadroom(busiestLoopPercent: 97, processCPUPercent: 60, machineCPUPercent: 99), "p99<50ms", Limiter.devsim),
        (StepHeadroom(busiestLoopPercent: 40, processCPUPercent: 40, machineCPUPercent: 98), "p99<50ms", .machine),
        (StepHeadroom(busiestLoopPercent: 40, processCPUPercent: 40, machineCPUPercent: 60, stealPercent: 20), "p99<50ms", .machine),
        (
            StepHeadroom(busiestLoopPercent: 40, processCPUPercent: 40, machineCPUPercent: 60, schedulingDelayP99Ms: 7), "lateness.p99<5ms",
            .machine
        ),
        (StepHeadroom(busiestLoopPercent: 40, processCPUPercent: 40, machineCPUPercent: 60, schedulingDelayP99Ms: 7), "p99<50ms", .broker),
        (
            StepHeadroom(busiestLoopPercent: 40, processCPUPercent: 40, machineCPUPercent: 60, schedulingDelayP99Ms: 1), "lateness.p99<5ms",
            .broker
        ),
    ])
    func whatLimitedAStepIsJudgedFromItsHeadroom(headroom: StepHeadroom, slo: String, limiter: Limiter) throws {
        let judged = headroom.limiter(brokenFirst: try Assertion.slo(slo))
        #expect(judged.limiter == limiter, "\(judged.reason)")
    }

    /// A lateness SLO broken with room to spare was put on the broker by elimination ("the
    /// messages waited for it"); a window waits only as long as the acknowledgements take.
    @Test func latenessIsTheBrokersOnlyWhereItsAcknowledgementsTookThatLong() throws {
        let roomy = StepHeadroom(busiestLoopPercent: 7, processCPUPercent: 10, machineCPUPercent: 60, schedulingDelayP99Ms: 1)
        let lateness = try Assertion.slo("lateness.p99<5ms")
        let quick = roomy.limiter(brokenFirst: lateness, ackLatencyP99Ms: 0.9)
        #expect(quick.limiter == .machine && quick.reason.contains("acknowledged within 0.9 ms"), "\(quick.reason)")
        let slow = roomy.limiter(brokenFirst: lateness, ackLatencyP99Ms: 30)
        #expect(slow.limiter == .broker && slow.reason.contains("waited for it"), "\(slow.reason)")
        #expect(roomy.limiter(brokenFirst: lateness).limiter == .broker, "QoS 0: no acknowledgements to tell by")
        #expect(roomy.limiter(brokenFirst: try Assertion.slo("p99<50ms"), ackLatencyP99Ms: 0.9).limiter == .broker)
    }

    /// A step that broke its lateness SLO with quick acknowledgements is this machine's only
    /// where it kept to its schedule: a window that fell behind queued messages for a slot
    /// however quick each acknowledgement was, and that is the broker's.
    @Test func quickAcknowledgementsExcuseTheBrokerOnlyForAStepThatKeptUp() throws {
        func judged(published: Int) throws -> Limiter? {
            var point = Timeline.Point(at: 0, seconds: 10)
            point.scheduled = 10_000
            point.published = published
            point.acknowledged = published
            var latency = Histogram()
            for _ in 0..<published { latency.record(900_000) }
            point.latency = SparseHistogram(latency)
            var step = CapacityStep(
                step: 1, multiplier: 1, targetPerSecond: 1_000, point: point,
                verdicts: [Verdict(assertion: "lateness.p99<5ms", passed: false, actual: 7, message: "")], brokenFirst: "lateness.p99<5ms",
                headroom: StepHeadroom(busiestLoopPercent: 7, processCPUPercent: 10, machineCPUPercent: 60, schedulingDelayP99Ms: 1))
            step.judgeLimiter(slos: [try Assertion.slo("lateness.p99<5ms")])
            return step.limiter
        }
        #expect(try judged(published: 9_950) == .machine, "99.5 % of its schedule: it kept up")
        #expect(try judged(published: 9_000) == .broker, "90 %: messages waited for a slot in the window")
    }

    /// Issue 38, item 5: devsim is named where its loops were the limit. CPU time is what the
    /// hypervisor left: a loop busy 72 % of a hold of which it stole 26 % ran all it could, and
    /// was judged the machine's, never devsim's.
    @Test func aLoopBusyAllTheTimeTheHypervisorLeftIsDevsimsLimit() throws {
        let lateness = try Assertion.slo("lateness.p99<5ms")
        let stolen = StepHeadroom(busiestLoopPercent: 72, processCPUPercent: 45, machineCPUPercent: 99, stealPercent: 26)
        let judged = stolen.limiter(brokenFirst: lateness)
        #expect(judged.limiter == .devsim, "\(judged.reason)")
        #expect(
            judged.reason == "devsim: its busiest loop was 97 % busy of the time the hypervisor left it (it stole 26 %); "
                + "run more shards (--shard) or on a bigger machine")
        let roomy = StepHeadroom(busiestLoopPercent: 40, processCPUPercent: 30, machineCPUPercent: 60, stealPercent: 26)
        #expect(roomy.limiter(brokenFirst: lateness).limiter == .machine, "room to spare, and the hypervisor's steal")
    }

    @Test func aLimiterIsNamedInWordsThatSayWhatToDo() throws {
        let devsim = StepHeadroom(busiestLoopPercent: 97, processCPUPercent: 60).limiter(brokenFirst: nil)
        #expect(devsim.reason == "devsim: its busiest loop was 97 % busy; run more shards (--shard) or on a bigger machine")
        let broker = StepHeadroom(busiestLoopPercent: 41, processCPUPercent: 30, machineCPUPercent: 50)
            .limiter(brokenFirst: try Assertion.slo("p99<50ms"))
        #expect(broker.reason == "the broker (p99<50ms), while devsim's busiest loop was 41 % busy and the machine had room")
    }

    /// The recorder measures each hold's headroom from the readings' loads, and names what
    /// held a broken step back.
    @Test func aBrokenStepCarriesItsHeadroomAndLimiter() throws {
        var recorder = CapacityStepper(
            settings: CapacitySettings(slos: [try Assertion.slo("p99<50ms")], step: .seconds(10), warmUp: .zero, baseRatePerSecond: 10),
            start: 0)
        recorder.connected(now: 0)
        var first = FigureReading(time: 0)
        first.load = load(at: 0)
        _ = recorder.record(first)
        var totals = Totals(), latency = Histogram()
        totals[.published] = 100
        for _ in 0..<100 { latency.record(80_000_000) }
        var end = FigureReading(time: 10_000_000_000, totals: totals, latency: latency)
        end.load = load(at: 10, loops: [9_800_000_000, 1_000_000_000], cpu: 11_000_000_000)
        let (step, _) = recorder.record(end)
        #expect(step?.headroom?.busiestLoopPercent == 98 && step?.limiter == .devsim, "\(String(describing: step))")
        #expect(
            step?.logLine.hasSuffix("; limited by devsim: its busiest loop was 98 % busy; run more shards (--shard) or on a bigger machine")
                == true)
    }

    /// The answer is the highest rate every hold of which passed: one that passed once and broke
    /// once when held again is not, and the answer is then unsure.
    @Test func theAnswerStandsOnlyOnRatesThatPassedEachTime() throws {
        func step(_ number: Int, _ target: Double, passed: Bool, p99: Double) -> CapacityStep {
            CapacityStep(
                step: number, multiplier: target / 10, targetPerSecond: target, point: Timeline.Point(at: 0, seconds: 1),
                verdicts: [Verdict(assertion: "p99<50ms", passed: passed, actual: p99, message: "")],
                brokenFirst: passed ? nil : "p99<50ms")
        }
        var figures = CapacityFigures(slos: ["p99<50ms"], stepSeconds: 1, warmUpSeconds: 0, baseRatePerSecond: 10)
        figures.steps = [step(1, 10, passed: true, p99: 5), step(2, 20, passed: true, p99: 30), step(3, 40, passed: false, p99: 90)]
        figures.steps += [step(4, 30, passed: true, p99: 40), step(5, 35, passed: false, p99: 60), step(6, 32.5, passed: true, p99: 45)]
        figures.steps += [step(7, 32.5, passed: true, p99: 48), step(8, 35, passed: false, p99: 70)]
        #expect(figures.capacity?.targetPerSecond == 32.5 && figures.brokeAt?.targetPerSecond == 35 && figures.isSure)
        #expect(figures.boundary.map(\.tally) == ["passed 2 of 2 holds", "broke in 2 of 2 holds"])
        #expect(figures.boundary.last?.spread["p99<50ms"] == [60, 70])
        figures.steps[6] = step(7, 32.5, passed: false, p99: 52)
        #expect(figures.capacity?.targetPerSecond == 30 && figures.brokeAt?.targetPerSecond == 32.5 && !figures.isSure)
    }
}
