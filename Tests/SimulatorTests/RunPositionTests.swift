import Scenario
import Testing

@testable import Report
@testable import Simulator

/// Issue 25, items 2 and 3: where a run stands in its stages and its capacity search, as the
/// live page and `/metrics` show it, from the recorders, on a virtual clock.
@Suite struct RunPositionTests {
    private static let second: UInt64 = 1_000_000_000

    @Test func theStageUnderWayIsTheClocksAndNoneAfterTheLast() {
        let stages = [Stage(duration: 10, target: .multiplier(2)), Stage(duration: 20, target: .rate(.every(seconds: 0.05)))]
        let recorder = StageTracker(stages: stages, start: 5 * Self.second)
        let first = recorder.position(at: 8 * Self.second)
        #expect(first.stage == 1 && first.count == 2 && first.target == "x2" && first.seconds == 3 && first.plannedSeconds == 10)
        // Read by the clock, not by the readings, which no one took here.
        let second = recorder.position(at: 20 * Self.second)
        #expect(second.stage == 2 && second.target == "20/s" && second.seconds == 5 && second.plannedSeconds == 20)
        let after = recorder.position(at: 40 * Self.second)
        #expect(after.stage == nil && after.target == "20/s", "the last target holds")
    }

    /// The fleet's target under stages: each device's rate times its profile's multiplier now,
    /// a device without stages at its own rate.
    @Test func theStagesTargetIsTheFleetsPlannedRateNow() throws {
        let yaml = """
            stages:
              - { duration: 10s, multiplier: 3 }
            devices:
              - { name: a, count: 4, topic: "a/{index}", publish: 2/s, payload: { fields: { n: { counter: 0 } } } }
              - name: b
                count: 1
                topic: b
                publish: 1/s
                stages: [{ duration: 10s, rate: 5/s }]
                payload: { fields: { n: { counter: 0 } } }
            """
        let plan = try plan(yaml: yaml, file: "p.yaml")
        let stage = RunPosition.Stage(stage: 1, count: 1, target: "x3", seconds: 5, plannedSeconds: 10)
        // Halfway up the ramps: a at 2/s × 2 a device, b at 3/s.
        let halfway = RunPosition(stages: [stage], step: nil, capacityBase: nil, plan: plan, seconds: 5)
        #expect(abs((halfway.targetPerSecond ?? 0) - (4 * 2 * 2 + 3)) < 1e-9, "\(String(describing: halfway.targetPerSecond))")
        let after = RunPosition(stages: [stage], step: nil, capacityBase: nil, plan: plan, seconds: 60)
        #expect(abs((after.targetPerSecond ?? 0) - (4 * 2 * 3 + 5)) < 1e-9, "\(String(describing: after.targetPerSecond))")
        #expect(
            RunPosition(stages: [], step: nil, capacityBase: nil, plan: plan, seconds: 5).targetPerSecond == nil, "no stages, no target")
    }

    /// The search's step through its phases, and its target: the step's rate while it warms up
    /// and is measured, the scenarios' while the fleet connects or cools down.
    @Test func theCapacityStepFollowsTheSearch() throws {
        var recorder = CapacityStepper(
            settings: CapacitySettings(
                slos: [try Assertion.slo("p99<50ms")], step: .seconds(1), warmUp: .seconds(1), baseRatePerSecond: 10),
            start: 0)
        func target(_ step: RunPosition.Step) -> Double? {
            RunPosition(
                stages: [], step: step, capacityBase: recorder.baseRatePerSecond, plan: FleetPlan(scenarios: [], settings: RunSettings()),
                seconds: 0
            ).targetPerSecond
        }
        #expect(recorder.position == RunPosition.Step(step: 1, phase: .connecting, multiplier: 1))
        recorder.connected(now: 0)
        #expect(recorder.position.phase == .warmingUp && target(recorder.position) == 10)
        var totals = Totals(), latency = Histogram()
        _ = recorder.record(FigureReading(time: Self.second, totals: totals, latency: latency))
        #expect(recorder.position == RunPosition.Step(step: 1, phase: .measuring, multiplier: 1))
        totals[.published] = 10
        latency.record(2_000_000)
        #expect(recorder.record(FigureReading(time: 2 * Self.second, totals: totals, latency: latency)).action == .setMultiplier(2))
        #expect(recorder.position == RunPosition.Step(step: 2, phase: .warmingUp, multiplier: 2) && target(recorder.position) == 20)
        _ = recorder.record(FigureReading(time: 3 * Self.second, totals: totals, latency: latency))
        totals[.published] += 20
        for _ in 0..<20 { latency.record(60_000_000) }
        #expect(recorder.record(FigureReading(time: 4 * Self.second, totals: totals, latency: latency)).action == .coolDown)
        #expect(recorder.position == RunPosition.Step(step: 3, phase: .coolingDown, multiplier: 1.5) && target(recorder.position) == 10)
    }
}
