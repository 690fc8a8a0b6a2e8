import Foundation
import Scenario
import Testing

@testable import Report
@testable import Simulator

/// Load profiles on a virtual clock: the ticks of each stage are the integral of its rate.
@Suite struct StageProfileTests {
    /// From 10/s: up to 20/s over 10 s (150 ticks), 20/s for 10 s (200), down to nothing over
    /// 5 s (50), nothing for 5 s, and back to 10/s over 5 s (25).
    private static let stages = [
        Stage(duration: 10, target: .rate(.every(seconds: 1.0 / 20))), Stage(duration: 10, target: .multiplier(2)),
        Stage(duration: 5, target: .multiplier(0)), Stage(duration: 5, target: .multiplier(0)),
        Stage(duration: 5, target: .multiplier(1)),
    ]
    private static let ends: [Double] = [10, 20, 25, 30, 35]

    /// S(t), worked out by hand for this profile: ∫₀ᵗ m.
    private static func integral(_ t: Double) -> Double {
        switch t {
        case ..<10: t + t * t / 20
        case ..<20: 15 + 2 * (t - 10)
        case ..<25: 35 + 2 * (t - 20) - (t - 20) * (t - 20) / 5
        case ..<30: 40
        case ..<35: 40 + (t - 30) * (t - 30) / 10
        default: 42.5 + (t - 35)
        }
    }

    /// Each stage's ticks of a device at 10/s whose schedule starts `start` seconds into the run.
    private static func ticksPerStage(start: Double) -> [Int] {
        let profile = RateProfile(stages: stages, baseRate: 10)!
        var schedule = Schedule(start: UInt64(start * 1e9), perSecond: 10, profile: profile, runStart: 0)
        var counts = [Int](repeating: 0, count: ends.count)
        while true {
            let seconds = Double(schedule.deadline) / 1e9
            guard let stage = ends.firstIndex(where: { seconds < $0 }) else { break }
            counts[stage] += 1
            schedule.advance()
        }
        return counts
    }

    @Test func aDeviceFromTheStartTicksTheIntegralOfEachStage() {
        #expect(Self.ticksPerStage(start: 0) == [150, 200, 50, 0, 25])
    }

    @Test(arguments: [0.037, 3.3, 12.25, 31.5])
    func aDeviceThatStartsLaterTicksTheIntegralFromItsStart(start: Double) {
        // Tick n is due where 10·(S(t) − S(start)) = n: those of a stage are the whole numbers
        // in its stretch of 10·(S − S(start)), from 0.
        let from = 10 * Self.integral(start)
        var expected: [Int] = []
        var previous = 0.0
        for end in Self.ends {
            let upTo = max(0, 10 * Self.integral(end) - from)
            expected.append(Int(upTo.rounded(.up)) - Int(previous.rounded(.up)))
            previous = upTo
        }
        #expect(Self.ticksPerStage(start: start) == expected, "starting at \(start) s")
    }

    @Test func theProfileReadsBackItsOwnClock() throws {
        let profile = try #require(RateProfile(stages: Self.stages, baseRate: 10))
        for t in stride(from: 0.0, through: 40, by: 0.25) {
            #expect(abs(profile.clock(at: t) - Self.integral(t)) < 1e-9, "S(\(t))")
            if t < 25 || t > 30 {
                #expect(abs(try #require(profile.time(atClock: Self.integral(t))) - t) < 1e-6, "t at S(\(t))")
            }
        }
        #expect(profile.multiplier(at: 5) == 1.5 && profile.multiplier(at: 27) == 0 && profile.multiplier(at: 99) == 1)
        #expect(profile.end == 35)
        // A profile that ends at nothing never reaches beyond where it stopped.
        let stopping = try #require(RateProfile(stages: [Stage(duration: 2, target: .multiplier(0))], baseRate: 1))
        // From 1 down to 0 over 2 s: S(t) = t − t²/4, which is 0.5 at 2 − √2 and never passes 1.
        #expect(abs(try #require(stopping.time(atClock: 0.5)) - (2 - 2.0.squareRoot())) < 1e-12)
        #expect(stopping.time(atClock: 1.5) == nil)
    }

    @Test func theDryRunFollowsTheStagesOfTheScenario() throws {
        let yaml = """
            name: staged
            stages:
              - { duration: 10s, rate: 20/s }
              - { duration: 10s, multiplier: 2 }
              - { duration: 5s, rate: 0/s }
            devices:
              - name: d
                count: 3
                jitter: none
                topic: "d/{id}"
                publish: 10/s
                payload: { fields: { n: { counter: 0 } } }
            """
        let scenario = try scenario(yaml: yaml, file: "staged.yaml")
        // Issue 25, item 3: a stage at no rate reads as one, not as `x0`.
        #expect(scenario.stages.map(\.targetText) == ["20/s", "x2", "0/s"])
        let plan = FleetPlan(scenarios: [scenario], settings: RunSettings(seed: 1))
        #expect(plan.stages == scenario.stages)
        var lines = 0
        DryRun(plan: plan, seed: 1, duration: .seconds(60), messages: nil).run { _ in lines += 1 }
        // 150 + 200 + 50 each, and nothing after a profile that ends at zero.
        #expect(lines == 3 * 400)
    }

    /// A ramp to nothing whose last ticks fall within rounding of its end: each tick after the
    /// one before, none back at the ramp's start (the square root of a value a few ulps below 0).
    @Test func aRampToNothingKeepsItsTicksInOrderAndThenStops() throws {
        let stages = [Stage(duration: 2, target: .rate(.every(seconds: 0.2))), Stage(duration: 30, target: .multiplier(0))]
        let profile = try #require(RateProfile(stages: stages, baseRate: 7))
        var schedule = Schedule(start: 0, perSecond: 7, profile: profile, runStart: 0)
        var deadlines: [UInt64] = []
        while schedule.deadline < Schedule.never, deadlines.count < 1000 {
            deadlines.append(schedule.deadline)
            schedule.advance()
        }
        // Ticks 0 to 7 × (12/7 + 75/7) = 87, the last at most at the ramp's end.
        #expect((87...88).contains(deadlines.count), "\(deadlines.count)")
        #expect(zip(deadlines, deadlines.dropFirst()).allSatisfy { $0 < $1 })
        #expect(deadlines.last! <= 32_000_000_000)
    }

    @Test func aDryRunOfAProfileThatStopsShowsOnlyTheTicksThatCome() throws {
        let yaml = """
            name: stop
            stages: [{ duration: 5s, multiplier: 0 }]
            devices:
              - { name: d, topic: t, publish: 1/s, payload: { fields: { n: { counter: 0 } } } }
            """
        let plan = try plan(yaml: yaml, file: "stop.yaml")
        var lines = 0
        // S(5) = 2.5: ticks at S = 0, 1 and 2, and none after.
        DryRun(plan: plan, seed: 1, duration: nil, messages: 10).run { _ in lines += 1 }
        #expect(lines == 3)
    }

    @Test func aReadingAfterTwoStageEndsClosesBoth() {
        let stages = [
            Stage(duration: 1, target: .multiplier(1)), Stage(duration: 1, target: .multiplier(2)),
            Stage(duration: 1, target: .multiplier(3)),
        ]
        var recorder = StageTracker(stages: stages, start: 0)
        var totals = Totals()
        totals.figures[.scheduled] = 30
        recorder.record(FigureReading(time: 2_100_000_000, totals: totals))
        #expect(recorder.figures.map(\.stage) == [1, 2])
        #expect(recorder.figures.map(\.point.scheduled) == [30, 0])
        #expect(recorder.due == 3_000_000_000)
        totals.figures[.scheduled] = 40
        recorder.record(FigureReading(time: 2_500_000_000, totals: totals), final: true)
        #expect(recorder.figures.map(\.point.scheduled) == [30, 0, 10])
        #expect(recorder.due == nil)
    }

    @Test func aRecoveryTimesTheShareOfConnectionsBackAndShardsAddUp() {
        // The 5th and the 9th of 10 back, and the last.
        let recovery = StageRecovery(dropped: 10, back: [0.9, 0.3, 0.5, 0.4, 0.35, 0.6, 0.45, 0.7, 0.8, 1.2])
        #expect(recovery.back == 10 && recovery.p50Seconds == 0.5 && recovery.p90Seconds == 0.9 && recovery.allSeconds == 1.2)
        let short = StageRecovery(dropped: 10, back: [0.3, 0.4, 0.5, 0.6, 0.7])
        #expect(short.p50Seconds == 0.7 && short.p90Seconds == nil && short.allSeconds == nil)
        let merged = recovery.beside(StageRecovery(dropped: 4, back: [0.2, 0.3, 0.4, 1.5]))
        #expect(merged == StageRecovery(dropped: 14, back: 14, p50Seconds: nil, p90Seconds: nil, allSeconds: 1.5))
        #expect(recovery.beside(short).allSeconds == nil, "not all back in one shard: not all back")
    }

    @Test func aStagesFigureMayHaveSpacesAfterTheDot() throws {
        let assertion = try Assertion("stage[1]. rate>=99%")
        #expect(assertion.stage == 1 && assertion.metric.name == "rate")
    }

    @Test(arguments: [
        ("stages: []", "'stages' is empty: give at least one, such as { duration: 30s, rate: 20/s }, or leave it out"),
        ("stages: 5", "expected a list of stages such as [{ duration: 30s, rate: 20/s }] for 'stages', found"),
        ("stages: [{ rate: 5/s }]", "missing 'duration' in a stage"),
        (
            "stages: [{ duration: 5s }]",
            "a stage needs its target: 'rate' (each device's, such as 20/s), 'multiplier' (of the group's publish rate) or 'devices'"
        ),
        ("stages: [{ duration: 5s, rate: 5/s, multiplier: 2 }]", "a stage has one target; found 'rate' and 'multiplier'"),
        ("stages: [{ duration: 5s, devices: 2 }]", "stage 1 has 2 devices in, and the fleet has 1: raise 'count' to 2"),
        ("stages: [{ duration: 5s, devices: -1 }]", "devices"),
        ("stages: [{ duration: 5s, multiplier: -1 }]", "multiplier"),
        ("stages: [{ duration: 0s, rate: 5/s }]", "duration"),
        ("stages: [{ duration: 5s, disconnect: all }]", "the first stage cannot 'disconnect: all': nothing is up yet"),
        ("stages: [{ duration: 5s, rate: 5/s }, { duration: 5s, disconnect: some }]", "disconnect"),
    ])
    func badStagesAreRefusedWhereTheyAreWritten(stages: String, message: String) {
        let yaml = "name: bad\n\(stages)\ndevices:\n  - { name: d, topic: t, publish: 1/s, payload: { fields: { n: { counter: 0 } } } }\n"
        #expect {
            try scenario(yaml: yaml, file: "bad.yaml")
        } throws: { error in
            "\(error)".contains("bad.yaml:2:") && "\(error)".contains(message)
        }
    }

    @Test func aGroupAtMaxHasNoRateToRamp() {
        let yaml =
            "name: max\nstages: [{ duration: 5s, multiplier: 2 }]\ndevices:\n  - { name: fast, topic: t, publish: max, payload: { fields: { n: { counter: 0 } } } }\n"
        #expect {
            try scenario(yaml: yaml, file: "max.yaml")
        } throws: { error in
            "\(error)".contains("device group 'fast' publishes at max: it has no rate to ramp")
        }
    }
}
