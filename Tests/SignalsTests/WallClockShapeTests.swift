import Testing
import Signals

/// `peakAt`: shapes that follow the time of day (or week) on the wall clock.
@Suite struct WallClockShapeTests {
    /// Monday 13 November 2023, 00:00 UTC.
    static let mondayMidnight = 1_699_833_600.0

    /// The step (from 0) at which the first field's values peak.
    static func peakStep(_ harness: GeneratorHarness, steps: Int) -> Int {
        let values = harness.numbers(steps)
        return values.indices.max { values[$0] < values[$1] }!
    }

    static let daily: [String: TestParameters.Value] = [
        "min": .number(18), "max": .number(26), "period": .duration(86_400),
        "peakAt": .string("14:00"),
    ]

    @Test func sinePeaksAtTheWallClockTime() throws {
        let sine = try recipe("sine", TestParameters(Self.daily))
        // A value per minute over a day from midnight: the peak is the 840th minute.
        let harness = GeneratorHarness(sine, interval: 60, wallClockStart: Self.mondayMidnight)
        let values = harness.numbers(1440)
        #expect(values.indices.max { values[$0] < values[$1] } == 14 * 60)
        #expect(values.indices.min { values[$0] < values[$1] } == 2 * 60)
        #expect(Swift.abs(values[14 * 60] - 26) < 1e-9)
    }

    @Test func peakDoesNotDependOnWhenTheDeviceStarted() throws {
        let sine = try recipe("sine", TestParameters(Self.daily))
        // Started at 09:17:30 on another day: the peak is still at 14:00, 4 h 42 min 30 s later.
        let start = Self.mondayMidnight + 3 * 86_400 + 9 * 3600 + 17 * 60 + 30
        #expect(
            Self.peakStep(GeneratorHarness(sine, interval: 30, wallClockStart: start), steps: 2880)
                == (4 * 3600 + 42 * 60 + 30) / 30)
    }

    @Test func timezoneShiftsThePeak() throws {
        var parameters = Self.daily
        parameters["timezone"] = .string("+01:00")
        let sine = try recipe("sine", TestParameters(parameters))
        // 14:00 at UTC+1 is 13:00 UTC.
        #expect(Self.peakStep(GeneratorHarness(sine, interval: 60, wallClockStart: Self.mondayMidnight), steps: 1440) == 13 * 60)
        parameters["timezone"] = .string("-05:30")
        let west = try recipe("sine", TestParameters(parameters))
        #expect(
            Self.peakStep(GeneratorHarness(west, interval: 60, wallClockStart: Self.mondayMidnight), steps: 1440)
                == 19 * 60 + 30)
    }

    @Test func weeklyPeakOnAWeekday() throws {
        let sine = try recipe(
            "sine",
            TestParameters([
                "min": .number(0), "max": .number(100), "period": .duration(7 * 86_400),
                "peakAt": .string("Wed 14:00"),
            ]))
        // Hourly from Monday midnight: Wednesday 14:00 is 2 × 24 + 14 = 62 hours in.
        #expect(Self.peakStep(GeneratorHarness(sine, interval: 3600, wallClockStart: Self.mondayMidnight), steps: 168) == 62)
        let sunday = try recipe(
            "sine",
            TestParameters([
                "min": .number(0), "max": .number(100), "period": .duration(7 * 86_400),
                "peakAt": .string("Sunday 06:30"),
            ]))
        #expect(
            Self.peakStep(GeneratorHarness(sunday, interval: 1800, wallClockStart: Self.mondayMidnight), steps: 336)
                == (6 * 24 + 6) * 2 + 1)
    }

    @Test func aPeriodThatDividesADayPeaksEveryCycle() throws {
        let sine = try recipe(
            "sine",
            TestParameters([
                "min": .number(0), "max": .number(1), "period": .duration(43_200),
                "peakAt": .string("14:00"),
            ]))
        let values = GeneratorHarness(sine, interval: 3600, wallClockStart: Self.mondayMidnight).numbers(24)
        #expect(Swift.abs(values[2] - 1) < 1e-9 && Swift.abs(values[14] - 1) < 1e-9)
    }

    @Test func randomWalkMeanFollowsTheDay() throws {
        // No steps: the walk is its mean, which swings ±4 around 22 and tops out at 14:00.
        let walk = try recipe(
            "randomWalk",
            TestParameters([
                "step": .number(0), "mean": .number(22), "amplitude": .number(4),
                "period": .duration(86_400), "peakAt": .string("14:00"),
                "meanReversion": .number(0.1),
            ]))
        let values = GeneratorHarness(walk, interval: 60, wallClockStart: Self.mondayMidnight).numbers(1440)
        #expect(values.indices.max { values[$0] < values[$1] } == 14 * 60)
        #expect(Swift.abs(values.max()! - 26) < 1e-9 && Swift.abs(values.min()! - 18) < 1e-6)

        // With steps, the day still shows through the wandering.
        let wandering = try recipe(
            "randomWalk",
            TestParameters([
                "step": .number(0.05), "mean": .number(22),
                "amplitude": .number(4), "peakAt": .string("14:00"),
                "meanReversion": .number(0.05), "min": .number(10),
                "max": .number(35),
            ]))
        let day = GeneratorHarness(wandering, interval: 60, wallClockStart: Self.mondayMidnight).numbers(1440)
        #expect(mean(Array(day[(13 * 60)..<(15 * 60)])) > 25)
        #expect(mean(Array(day[(1 * 60)..<(3 * 60)])) < 19)
    }

    @Test func withoutPeakAtTheWaveFollowsElapsedTime() throws {
        let sine = try recipe("sine", TestParameters(["min": .number(0), "max": .number(2), "period": .duration(4)]))
        let early = GeneratorHarness(sine, wallClockStart: 0).numbers(8)
        let late = GeneratorHarness(sine, wallClockStart: 1_234_567).numbers(8)
        #expect(early == late)
        #expect(early.map { ($0 * 1e9).rounded() / 1e9 } == [1, 2, 1, 0, 1, 2, 1, 0])
    }

    @Test func badPeaksNameTheKey() {
        func error(_ extra: [String: TestParameters.Value]) -> ParameterError? {
            parameterError("sine", TestParameters(Self.daily.merging(extra) { $1 }))
        }
        #expect(error(["peakAt": .string("25:00")])?.key == "peakAt")
        #expect(error(["peakAt": .string("14h")])?.key == "peakAt")
        #expect(error(["peakAt": .string("Wed 14:00")])?.key == "peakAt")
        #expect(error(["peakAt": .string("Someday 14:00"), "period": .duration(7 * 86_400)])?.key == "peakAt")
        #expect(error(["period": .duration(7 * 86_400)])?.key == "peakAt")
        #expect(error(["period": .duration(7 * 3600)])?.key == "peakAt")
        #expect(error(["timezone": .string("CET")])?.key == "timezone")
        #expect(
            parameterError(
                "sine",
                TestParameters([
                    "min": .number(0), "max": .number(1), "period": .duration(60),
                    "timezone": .string("+01:00"),
                ]))?.key == "timezone")
        #expect(error(["timezone": .string("Z")]) == nil)
        #expect(error(["peakAt": .string("14:00:30"), "timezone": .string("+0530")]) == nil)
    }
}
