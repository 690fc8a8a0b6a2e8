import Foundation
import Signals
import Testing

/// Issue 14, item 4: signals that look right on a dashboard, found by writing a small-office
/// scenario as a new user would.
@Suite struct DashboardSignalTests {
    /// The first `count` values of field `v` made by `key` with `parameters` for device `id`.
    private func values(_ key: String, _ parameters: TestParameters, id: String, count: Int = 1, seed: UInt64 = 7) throws -> [Double] {
        let spec = PayloadSpec(style: .flat, fields: [FieldSpec(name: "v", generator: try recipe(key, parameters), decimals: 6)])
        let signals = DeviceSignals(payload: spec, deviceID: id, index: 1, seed: seed, sampleInterval: nil)
        var buffer = PayloadBuffer()
        return try (0..<count).map { tick in
            buffer.removeAll()
            signals.encode(elapsed: Double(tick) * 3600, wallClock: 1_800_000_000 + Double(tick) * 3600, into: &buffer)
            let object = try JSONSerialization.jsonObject(with: Data(buffer.text.utf8)) as? [String: Double]
            return try #require(object?["v"])
        }
    }

    private let rooms = ["room-1", "room-2", "room-3", "room-4"]

    @Test func fourRoomsBeginAsFourLinesUnlessTheStartIsPinned() throws {
        let walk = TestParameters([
            "mean": .number(21), "step": .number(0.1), "min": .number(15), "max": .number(30), "meanReversion": .number(0.05),
        ])
        let starts = try rooms.map { try values("randomWalk", walk, id: $0)[0] }
        #expect(Set(starts).count == 4, "each room its own start: \(starts)")
        // The walk's own spread in the long run: 0.1 / √(1 − 0.95²) ≈ 0.32.
        #expect(starts.allSatisfy { abs($0 - 21) < 2 }, "near the mean, within the walk's spread: \(starts)")
        #expect(try rooms.map { try values("randomWalk", walk, id: $0)[0] } == starts, "fixed by the seed and the id")
        #expect(try values("randomWalk", walk, id: "room-1", seed: 8)[0] != starts[0], "another seed, another start")

        var pinned = walk
        pinned.values["start"] = .number(22)
        #expect(try rooms.map { try values("randomWalk", pinned, id: $0)[0] } == [22, 22, 22, 22], "a start the scenario gives holds")

        let free = TestParameters(["step": .number(0.5), "min": .number(10), "max": .number(30)])
        let spread = try rooms.map { try values("randomWalk", free, id: $0)[0] }
        #expect(Set(spread).count == 4 && spread.allSatisfy { (15...25).contains($0) }, "the middle half of the bounds: \(spread)")
    }

    @Test func phaseShiftsARandomWalksMeanAndRandomGivesEachDeviceItsOwn() throws {
        // No steps: the value is the mean's wave alone.
        let wave: [String: TestParameters.Value] = [
            "mean": .number(0), "start": .number(0), "step": .number(0), "amplitude": .number(10), "period": .duration(86_400),
        ]
        let quarter = try values("randomWalk", TestParameters(wave.merging(["phase": .number(0.25)]) { $1 }), id: "a", count: 7)
        #expect(abs(quarter[0] - 10) < 1e-6, "a quarter cycle on: the top of the wave at the start: \(quarter)")
        let offset = try values("randomWalk", TestParameters(wave.merging(["phase": .duration(21_600)]) { $1 }), id: "a")
        #expect(abs(offset[0] - 10) < 1e-6, "6h of a 24h period is a quarter")
        let random = TestParameters(wave.merging(["phase": .string("random")]) { $1 })
        let shapes = try rooms.map { try values("randomWalk", random, id: $0, count: 3) }
        #expect(Set(shapes.map { $0[1] }).count == 4, "each device its own phase: \(shapes)")
        #expect(try rooms.map { try values("randomWalk", random, id: $0, count: 3) } == shapes, "fixed by the seed")
    }

    @Test func aRandomPhaseBesidePeakAtIsRefusedWithTheReason() throws {
        let sine = TestParameters([
            "min": .number(0), "max": .number(1), "period": .duration(86_400), "peakAt": .string("14:00"), "phase": .string("random"),
        ])
        let error = try #require(parameterError("sine", sine))
        #expect(error.key == "phase" && error.message.contains("peakAt puts them all at one time"), "\(error)")
        let walk = TestParameters([
            "step": .number(1), "amplitude": .number(3), "peakAt": .string("14:00"), "phase": .string("random"),
        ])
        #expect(parameterError("randomWalk", walk)?.key == "phase")
        var shifted = sine
        shifted.values["phase"] = .duration(1800)
        #expect(parameterError("sine", shifted) == nil, "a fixed phase shifts the peak")
        let noWave = TestParameters(["step": .number(1), "phase": .number(0.5)])
        #expect(parameterError("randomWalk", noWave)?.message == "phase shifts the mean's wave: give amplitude too")
    }
}

/// Issue 14, item 4: a door contact that holds its state, within the stays it was given.
@Suite struct DwellTests {
    private let door = TestParameters(["values": .list(["false", "true"]), "min": .list(["120", "5"]), "max": .list(["1800", "60"])])

    /// The door's state at each second of a day, sampled once a second.
    private func day(_ id: String, seed: UInt64 = 1) throws -> [Bool] {
        let spec = PayloadSpec(style: .flat, fields: [FieldSpec(name: "open", generator: try recipe("dwell", door))])
        let signals = DeviceSignals(payload: spec, deviceID: id, index: 1, seed: seed, sampleInterval: 1)
        var buffer = PayloadBuffer()
        return (0..<86_400).map { second in
            buffer.removeAll()
            signals.encode(elapsed: Double(second), wallClock: Double(second), into: &buffer)
            return buffer.text.contains("true")
        }
    }

    @Test func everyStayIsWithinItsBoundsOverADay() throws {
        let states = try day("door-1")
        var runs: [(open: Bool, seconds: Int)] = []
        for state in states {
            if let last = runs.last, last.open == state { runs[runs.count - 1].seconds += 1 } else { runs.append((state, 1)) }
        }
        // The first and last stays are cut by the day; the others are whole, to the second.
        let whole = runs.dropFirst().dropLast()
        #expect(whole.count > 50, "a day of a door: \(whole.count) stays")
        for run in whole {
            let bounds = run.open ? 5...61 : 120...1801
            #expect(bounds.contains(run.seconds), "\(run.open ? "open" : "closed") for \(run.seconds) s")
        }
        #expect(Set(whole.filter(\.open).map(\.seconds)).count > 10, "stays drawn, not fixed")
        #expect(try day("door-1") == states, "the same seed, the same door")
        #expect(try day("door-2") != states, "another door, other stays")
    }

    @Test func whatADwellNeedsIsSaid() {
        #expect(
            parameterError("dwell", TestParameters(["values": .list(["a"]), "min": .list(["1"]), "max": .list(["2"])]))?.key == "values")
        #expect(
            parameterError("dwell", TestParameters(["values": .list(["a", "b"]), "min": .list(["1"]), "max": .list(["2", "3"])]))?.message
                == "min must have one duration per value: 2, found 1")
        #expect(
            parameterError("dwell", TestParameters(["values": .list(["a", "b"]), "min": .list(["5", "1"]), "max": .list(["2", "3"])]))?
                .message
                == "max must be at least min for each value: not for value 1")
    }
}

/// Issue 14, item 4: an energy meter's total is the integral of its power, as published.
@Suite struct IntegralTests {
    private func meter(energyFirst: Bool, seed: UInt64 = 5) throws -> [(power: Double, energy: Double)] {
        let power = FieldSpec(
            name: "power", generator: try recipe("uniform", TestParameters(["min": .number(100), "max": .number(2000)])), decimals: 0)
        let energy = FieldSpec(
            name: "energy",
            generator: try recipe(
                "integral",
                TestParameters([
                    "of": .string("power"), "per": .duration(3600), "scale": .number(0.001), "start": .number(1200), "spread": .number(100),
                ])),
            decimals: 4)
        let spec = PayloadSpec(style: .flat, fields: energyFirst ? [energy, power] : [power, energy])
        let signals = DeviceSignals(payload: spec, deviceID: "meter-1", index: 1, seed: seed, sampleInterval: nil)
        var buffer = PayloadBuffer()
        return try (0..<3600).map { second in
            buffer.removeAll()
            signals.encode(elapsed: Double(second) * 2, wallClock: 0, into: &buffer)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(buffer.text.utf8)) as? [String: Double])
            return (try #require(object["power"]), try #require(object["energy"]))
        }
    }

    @Test func theTotalIsTheIntegralOfThePowerPublished() throws {
        let readings = try meter(energyFirst: false)
        let start = readings[0].energy
        #expect(start >= 1200 && start < 1300, "its own start: \(start)")
        var expected = start
        for index in readings.indices.dropFirst() {
            // W over the 2 s since the previous publish, in kWh.
            expected += readings[index - 1].power * 2 / 3600 / 1000
            // Within the last digit published: the start and this reading are each rounded to 4.
            #expect(
                abs(readings[index].energy - expected) <= 0.0001 + 1e-9, "publish \(index): \(readings[index].energy) against \(expected)")
        }
        #expect(zip(readings, readings.dropFirst()).allSatisfy { $1.energy >= $0.energy }, "monotonic")
        #expect(readings.last!.energy - start > 1, "two hours at about 1 kW: about 2 kWh")
        let reversed = try meter(energyFirst: true)
        #expect(reversed.map(\.energy) == readings.map(\.energy), "whatever the order of the fields")
        #expect(try meter(energyFirst: false, seed: 6)[0].energy != start, "each run's meters start apart")
    }
}

/// Issue 14, item 4: one topic per measurement, each field's bare value a message of its own.
@Suite struct PerFieldStyleTests {
    @Test func eachFieldIsWrittenAloneAndBare() throws {
        let fields = [
            FieldSpec(name: "temperature", generator: ConstantRecipe(value: .number(21.5)), decimals: 1),
            FieldSpec(name: "open", generator: ConstantRecipe(value: .bool(true))),
            FieldSpec(name: "mode", generator: ConstantRecipe(value: .string("heat"))),
            FieldSpec(
                name: "position",
                fields: [
                    FieldSpec(name: "lat", generator: ConstantRecipe(value: .number(52.5))),
                    FieldSpec(name: "lon", generator: ConstantRecipe(value: .number(13.4))),
                ]),
        ]
        let signals = DeviceSignals(
            payload: PayloadSpec(style: .perField, fields: fields), deviceID: "d", index: 1, seed: 1, sampleInterval: nil)
        var buffer = PayloadBuffer()
        signals.encode(elapsed: 0, wallClock: 0, into: &buffer)
        let bytes = buffer.bytes
        let messages = signals.pieces.map { (signals.fieldNames[$0.field], String(decoding: bytes[$0.bytes], as: UTF8.self)) }
        #expect(messages.map(\.0) == ["temperature", "open", "mode", "position"])
        #expect(messages.map(\.1) == ["21.5", "true", "heat", #"{"lat":52.5,"lon":13.4}"#])
    }
}

@Suite struct WatchedFieldTests {
    @Test func aChangeIsOfTheWatchedFieldsAlone() throws {
        let fields = [
            FieldSpec(
                name: "open",
                generator: try recipe(
                    "dwell", TestParameters(["values": .list(["false", "true"]), "min": .list(["2", "2"]), "max": .list(["3", "3"])]))),
            FieldSpec(name: "t", generator: try recipe("uniform", TestParameters(["min": .number(0), "max": .number(1)]))),
        ]
        let signals = DeviceSignals(payload: PayloadSpec(style: .flat, fields: fields), deviceID: "d", index: 1, seed: 2, sampleInterval: 1)
        signals.watch(["open"])
        var buffer = PayloadBuffer()
        var changes = 0
        for second in 0..<60 {
            buffer.removeAll()
            signals.encode(elapsed: Double(second), wallClock: 0, into: &buffer)
            if signals.hasChanged {
                changes += 1
                signals.markSent()
            }
        }
        // The door changes every 2 to 3 s: about 24 times in a minute, the temperature every second.
        #expect((18...31).contains(changes), "\(changes)")
    }
}
