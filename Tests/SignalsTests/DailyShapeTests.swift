import Signals
import Testing

/// Issue 25, item 7: events with a time of day. `bool`, `counter` and `dwell` with `peakAt` are
/// busy around it and quiet twelve hours away, over a virtual day stepped from midnight UTC
/// (seeded, so every figure is the same at every run).
@Suite struct DailyShapeTests {
    static let midnight = WallClockShapeTests.mondayMidnight

    static func shaped(_ parameters: [String: TestParameters.Value], peakAt: String, quiet: Double) -> TestParameters {
        TestParameters(parameters.merging(["peakAt": .string(peakAt), "quiet": .number(quiet)]) { $1 })
    }

    @Test func theActivityIsOneAtThePeakAndQuietTwelveHoursAway() throws {
        let shape = DailyShape(peak: WallClockPeak(epochOffset: 14 * 3600), quiet: 0.05)
        #expect(abs(shape.activity(wallClock: Self.midnight + 14 * 3600) - 1) < 1e-9)
        #expect(abs(shape.activity(wallClock: Self.midnight + 2 * 3600) - 0.05) < 1e-9)
        #expect(abs(shape.activity(wallClock: Self.midnight + 8 * 3600) - 0.525) < 1e-9, "half way between, six hours off")
    }

    /// Each second's chance is the probability times the hour's activity.
    @Test func aBoolIsTrueByDayAndHardlyAtNight() throws {
        let bool = try recipe("bool", Self.shaped(["probability": .number(0.5)], peakAt: "14:00", quiet: 0.05))
        let harness = GeneratorHarness(bool, interval: 1, wallClockStart: Self.midnight)
        var perHour = [Int](repeating: 0, count: 24)
        for second in 0..<86_400 where harness.next() == .bool(true) { perHour[second / 3600] += 1 }
        let share = perHour.map { Double($0) / 3600 }
        #expect(abs(share[14] - 0.5) < 0.02, "the peak hour: \(share[14])")
        #expect(abs(share[2] - 0.025) < 0.01, "02:00, a twentieth of the peak: \(share[2])")
        #expect(share.indices.max { share[$0] < share[$1] }.map { (12...15).contains($0) } == true)
        #expect(share.indices.min { share[$0] < share[$1] }.map { (0...4).contains($0) } == true)
    }

    /// One step a publish at the peak, hardly any at night, never down.
    @Test func aCounterCountsByDayAndHardlyAtNight() throws {
        let counter = try recipe("counter", Self.shaped(["start": .number(10), "step": .number(1)], peakAt: "13:00", quiet: 0.02))
        // A publish every 5 s: 720 an hour.
        let values = GeneratorHarness(counter, interval: 5, wallClockStart: Self.midnight).values(17_280 + 1)
        let numbers = values.map { $0.number ?? .nan }
        #expect(values.first == .integer(10), "the first publish is the start")
        #expect(values.allSatisfy { if case .integer = $0 { true } else { false } }, "whole start and step count in integers")
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $1 - $0 == 0 || $1 - $0 == 1 })
        let perHour = (0..<24).map { numbers[($0 + 1) * 720] - numbers[$0 * 720] }
        #expect(perHour[13] > 700, "13:00: \(perHour[13])")
        #expect(perHour[1] < 40, "01:00: \(perHour[1])")
        #expect(perHour[1] < perHour[13] / 10)
    }

    /// The door's rest (closed) stretches at night; its openings stay as long as given.
    @Test func aDwellRestsLongAtNightAndItsOtherStatesKeepTheirStays() throws {
        let door = try recipe(
            "dwell",
            Self.shaped(
                ["values": .list(["false", "true"]), "min": .list(["120", "5"]), "max": .list(["1800", "60"])],
                peakAt: "15:00", quiet: 0.03))
        // A week, a value every 5 s.
        let values = GeneratorHarness(door, interval: 5, wallClockStart: Self.midnight).values(7 * 17_280)
        var openings = [Int](repeating: 0, count: 24)
        var openFor: [Int] = []
        var run = 0
        for index in values.indices.dropFirst() {
            if values[index] == .bool(true) {
                if values[index - 1] == .bool(false) { openings[(index * 5 / 3600) % 24] += 1 }
                run += 1
            } else if run > 0 {
                openFor.append(run * 5)
                run = 0
            }
        }
        // Two hours either side of the peak, and of the quietest time, 03:00.
        let day = openings[13..<17].reduce(0, +)
        let night = openings[1..<5].reduce(0, +)
        #expect(day > 60, "13:00-17:00 over a week: \(day)")
        #expect(night * 5 < day, "01:00-05:00 over a week: \(night), against \(day)")
        // Sampled every 5 s: a stay of 5 to 60 s shows as 1 to 13 samples.
        #expect(!openFor.isEmpty && openFor.allSatisfy { (5...65).contains($0) }, "\(openFor.max() ?? 0) s open")
    }

    @Test func theShapeIsRefusedWhereItCannotBe() {
        let bool: [String: TestParameters.Value] = ["probability": .number(0.5)]
        #expect(parameterError("bool", TestParameters(bool.merging(["quiet": .number(0.1)]) { $1 }))?.key == "quiet")
        #expect(parameterError("bool", Self.shaped(bool, peakAt: "14:00", quiet: 0))?.key == "quiet")
        #expect(parameterError("bool", Self.shaped(bool, peakAt: "14:00", quiet: 1.5))?.key == "quiet")
        #expect(parameterError("counter", Self.shaped([:], peakAt: "Wed 14:00", quiet: 0.1))?.key == "peakAt")
        #expect(parameterError("counter", Self.shaped([:], peakAt: "25:00", quiet: 0.1))?.key == "peakAt")
        #expect(parameterError("bool", TestParameters(bool.merging(["timezone": .string("+01:00")]) { $1 }))?.key == "timezone")
    }
}
