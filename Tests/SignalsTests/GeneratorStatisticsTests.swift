import Testing
import Signals

/// Statistics over many draws, not single values: each generator's values have the shape asked.
@Suite struct GeneratorStatisticsTests {
    @Test func gaussianHasTheAskedMeanAndDeviation() throws {
        let gaussian = try recipe("gaussian", TestParameters(["mean": .number(20), "stddev": .number(3)]))
        let values = GeneratorHarness(gaussian).numbers(100_000)
        // The standard error of the mean is 3 / √100000 ≈ 0.0095, of σ about 0.0067.
        #expect(Swift.abs(mean(values) - 20) < 0.05)
        #expect(Swift.abs(standardDeviation(values) - 3) < 0.03)
    }

    @Test func gaussianShorthandIsTheMeanAndZeroDeviationIsConstant() throws {
        let shorthand = try #require(try recipe("gaussian", TestParameters(shorthand: "-4.5")) as? GaussianRecipe)
        #expect(shorthand.mean == -4.5 && shorthand.standardDeviation == 1)
        let flat = try recipe("gaussian", TestParameters(["mean": .number(7), "stddev": .number(0)]))
        #expect(GeneratorHarness(flat).numbers(100).allSatisfy { $0 == 7 })
    }

    @Test func sineHitsItsMinimumAndMaximum() throws {
        let sine = try recipe("sine", TestParameters(["min": .number(18), "max": .number(26), "period": .duration(60)]))
        // A thousand samples per period, over three periods.
        let values = GeneratorHarness(sine, interval: 0.06).numbers(3000)
        #expect(values.allSatisfy { (18...26).contains($0) })
        #expect(Swift.abs(values.max()! - 26) < 1e-3)
        #expect(Swift.abs(values.min()! - 18) < 1e-3)
        #expect(values[0] == 22)
    }

    @Test func sineRandomPhaseDiffersPerDeviceAndStaysInRange() throws {
        let sine = try recipe(
            "sine",
            TestParameters([
                "min": .number(0), "max": .number(1), "period": .duration(100),
                "phase": .string("random"),
            ]))
        let first = (1...20).map { GeneratorHarness(sine, id: "room-\($0)").numbers(1)[0] }
        #expect(Set(first).count == 20)
        #expect(first.allSatisfy { (0...1).contains($0) })
        #expect(GeneratorHarness(sine, id: "room-3").numbers(50) == GeneratorHarness(sine, id: "room-3").numbers(50))
        // Spread over the cycle, not bunched at one phase.
        #expect(first.contains { $0 < 0.25 } && first.contains { $0 > 0.75 })
    }

    @Test func randomWalkStaysWithinItsBounds() throws {
        let walk = try recipe(
            "randomWalk",
            TestParameters([
                "start": .number(5), "step": .number(0.5),
                "min": .number(0), "max": .number(10),
            ]))
        let values = GeneratorHarness(walk).numbers(100_000)
        #expect(values[0] == 5)
        #expect(values.allSatisfy { (0...10).contains($0) })
        // It reflects off the bounds rather than sticking to them, and roams the whole range.
        #expect(values.min()! < 0.5 && values.max()! > 9.5)
        #expect(values.filter { $0 == 0 || $0 == 10 }.count < 10)
        // Steps are small: σ 0.5, so no jump near the size of the range.
        let jumps = zip(values, values.dropFirst()).map { Swift.abs($1 - $0) }
        #expect(jumps.max()! < 4)
    }

    @Test func randomWalkWithOneBoundStaysOnItsSide() throws {
        let walk = try recipe("randomWalk", TestParameters(["start": .number(1), "step": .number(1), "min": .number(0)]))
        #expect(GeneratorHarness(walk).numbers(100_000).allSatisfy { $0 >= 0 })
    }

    @Test func meanReversionPullsTowardTheMean() throws {
        let walk = try recipe(
            "randomWalk",
            TestParameters([
                "start": .number(100), "mean": .number(0), "step": .number(1),
                "meanReversion": .number(0.1),
            ]))
        let values = GeneratorHarness(walk).numbers(100_000)
        #expect(values[0] == 100)
        // 0.9²⁰⁰ of the start is left after 200 samples: nothing.
        #expect(values[200...].allSatisfy { Swift.abs($0) < 15 })
        let settled = Array(values[1000...])
        #expect(Swift.abs(mean(settled)) < 0.2)
        // The stationary spread of x' = 0.9x + ε is 1 / √(1 − 0.81) ≈ 2.29.
        #expect(Swift.abs(standardDeviation(settled) - 2.294) < 0.15)
    }

    @Test func withoutReversionTheWalkSpreadsAsASquareRoot() throws {
        let walk = try recipe("randomWalk", TestParameters(["step": .number(1)]))
        // The end of 400 steps over 300 devices: σ √400 = 20.
        let ends = (1...300).map { device in GeneratorHarness(walk, id: "d\(device)").numbers(401)[400] }
        #expect(Swift.abs(mean(ends)) < 4)
        #expect(Swift.abs(standardDeviation(ends) - 20) < 3)
    }

    @Test func choiceHonoursItsWeights() throws {
        let choice = try recipe(
            "choice",
            TestParameters([
                "values": .list(["idle", "busy", "error", "off"]),
                "weights": .list(["70", "25", "5", "0"]),
            ]))
        let values = GeneratorHarness(choice).values(100_000)
        func share(_ text: String) -> Double {
            Double(values.filter { $0 == .string(text) }.count) / Double(values.count)
        }
        #expect(Swift.abs(share("idle") - 0.70) < 0.01)
        #expect(Swift.abs(share("busy") - 0.25) < 0.01)
        #expect(Swift.abs(share("error") - 0.05) < 0.005)
        #expect(share("off") == 0)
    }

    @Test func choiceWithoutWeightsIsEvenAndKeepsTypes() throws {
        let choice = try recipe("choice", TestParameters(["values": .list(["1", "2.5", "on", "true"])]))
        let values = GeneratorHarness(choice).values(40_000)
        let kinds: [SignalValue] = [.number(1), .number(2.5), .string("on"), .bool(true)]
        for kind in kinds {
            let share = Double(values.filter { $0 == kind }.count) / Double(values.count)
            #expect(Swift.abs(share - 0.25) < 0.01)
        }
    }

    @Test func boolHonoursItsProbability() throws {
        let bool = try recipe("bool", TestParameters(["probability": .number(0.2)]))
        let values = GeneratorHarness(bool).values(100_000)
        #expect(values.allSatisfy { $0 == .bool(true) || $0 == .bool(false) })
        let share = Double(values.filter { $0 == .bool(true) }.count) / Double(values.count)
        #expect(Swift.abs(share - 0.2) < 0.01)

        let never = try recipe("bool", TestParameters(shorthand: "0"))
        #expect(GeneratorHarness(never).values(1000).allSatisfy { $0 == .bool(false) })
        let always = try recipe("bool", TestParameters(shorthand: "1"))
        #expect(GeneratorHarness(always).values(1000).allSatisfy { $0 == .bool(true) })
        let even = try #require(try recipe("bool", TestParameters()) as? BoolRecipe)
        #expect(even.probability == 0.5)
    }
}
