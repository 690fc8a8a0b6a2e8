import Foundation
import Signals
import Testing

/// Issue 14, item 3: what a command does to a device's fields, and what it refuses.
@Suite struct CommandedFieldTests {
    private func signals(_ fields: [FieldSpec]) -> DeviceSignals {
        DeviceSignals(payload: PayloadSpec(style: .flat, fields: fields), deviceID: "d-1", index: 1, seed: 3, sampleInterval: nil)
    }

    private func field(_ name: String, _ recipe: any GeneratorRecipe, _ command: FieldCommand?, min: Double? = nil, max: Double? = nil)
        -> FieldSpec
    {
        var spec = FieldSpec(name: name, generator: recipe, decimals: 2, min: min, max: max)
        spec.command = command
        return spec
    }

    private func payload(_ signals: DeviceSignals, at elapsed: Double) throws -> [String: Any] {
        var buffer = PayloadBuffer()
        signals.encode(elapsed: elapsed, wallClock: 1_800_000_000 + elapsed, into: &buffer)
        return try #require(try JSONSerialization.jsonObject(with: Data(buffer.text.utf8)) as? [String: Any])
    }

    @Test func aSetValueReplacesTheGeneratorsUntilTheNext() throws {
        let device = signals([
            field("light", BoolRecipe(probability: 0), .set),
            field("mode", ChoiceRecipe(values: [.string("heat"), .string("cool")]), .set),
            field("level", try recipe("uniform", TestParameters(["min": .number(0), "max": .number(10)])), .set, min: 0, max: 10),
        ])
        #expect(try payload(device, at: 0)["light"] as? Bool == false)
        try device.take([("light", .text("ON")), ("mode", .text("cool")), ("level", .number(7.5))])
        for second in 1...5 {
            let state = try payload(device, at: Double(second))
            #expect(state["light"] as? Bool == true && state["mode"] as? String == "cool" && state["level"] as? Double == 7.5, "\(state)")
        }
        try device.take([("light", .bool(false))])
        #expect(try payload(device, at: 6)["light"] as? Bool == false)
    }

    @Test func aValueThatDoesNotFitChangesNothing() throws {
        let device = signals([
            field("light", BoolRecipe(probability: 1), .set),
            field("mode", ChoiceRecipe(values: [.string("heat"), .string("cool")]), .set),
            field("level", try recipe("uniform", TestParameters(["min": .number(0), "max": .number(10)])), .set, min: 0, max: 10),
            field("free", try recipe("uniform", TestParameters(["min": .number(0), "max": .number(1)])), nil),
            field("walk", RandomWalkRecipe(start: 1, step: 0.1), nil),
        ])
        let cases: [([(field: String, value: CommandValue)], String)] = [
            ([("light", .text("maybe"))], "field 'light' is switched with true or false (ON or OFF), not 'maybe'"),
            ([("mode", .text("dry"))], "field 'mode' is one of its choices, not 'dry'"),
            ([("level", .number(11))], "field 'level' is at most 10"),
            ([("level", .text("high"))], "field 'level' takes a number, not 'high'"),
            ([("free", .number(0.5))], "field 'free' takes no command (give it command: set)"),
            // Issue 38, item 4: a process value moves to a setpoint; `set` alone would stop its walk.
            (
                [("walk", .number(0.5))],
                "field 'walk' takes no command (give it command: { setpoint: 1/min } to move it there, or command: set)"
            ),
            ([("missing", .number(1))], "no field 'missing'"),
            // All or none: the light is not switched off for a level out of bounds beside it.
            ([("light", .bool(false)), ("level", .number(-1))], "field 'level' is at least 0"),
        ]
        for (values, reason) in cases {
            #expect(throws: CommandRejection(reason)) { try device.take(values) }
        }
        #expect(try payload(device, at: 0)["light"] as? Bool == true, "nothing was applied")
    }

    @Test func aSetpointIsFollowedAtItsRateAndHeld() throws {
        let walk = RandomWalkRecipe(start: 20, step: 0.01, meanReversion: 0.5)
        let device = signals([field("t", walk, .setpoint(perSecond: 0.5), min: 10, max: 30)])
        let before = try #require(try payload(device, at: 0)["t"] as? Double)
        #expect(abs(before - 20) < 0.1)
        try device.take([("t", .number(22))])
        var values: [Double] = []
        for second in 1...10 { values.append(try #require(try payload(device, at: Double(second))["t"] as? Double)) }
        // The first publish after the command starts the move; then 0.5 a second, two degrees in four.
        #expect(abs(values[2] - 21) < 0.1, "half way after two seconds of moving: \(values)")
        #expect(values[5...].allSatisfy { abs($0 - 22) < 0.1 }, "there and held, its walk going on: \(values)")
        #expect(throws: CommandRejection("field 't' is at most 30")) { try device.take([("t", .number(31))]) }
    }
}

/// Fixes from a review: a setpoint keeps to the bounds a dashboard is told of, the walk's own
/// when the field has none, and the value moved there does too.
@Suite struct SetpointBoundsTests {
    @Test func aSetpointKeepsToTheWalksBounds() throws {
        let walk = RandomWalkRecipe(start: 27, step: 0.5, min: 15, max: 28, meanReversion: 0.2)
        var spec = FieldSpec(name: "t", generator: walk, decimals: 2)
        spec.command = .setpoint(perSecond: 10)
        #expect(spec.commandBounds.min == 15 && spec.commandBounds.max == 28)
        let device = DeviceSignals(
            payload: PayloadSpec(style: .flat, fields: [spec]), deviceID: "d", index: 1, seed: 9, sampleInterval: nil)
        #expect(throws: CommandRejection("field 't' is at most 28")) { try device.take([("t", .number(40))]) }
        try device.take([("t", .number(28))])
        var buffer = PayloadBuffer()
        for second in 0..<60 {
            buffer.removeAll()
            device.encode(elapsed: Double(second), wallClock: 0, into: &buffer)
            let value = try #require(try JSONSerialization.jsonObject(with: Data(buffer.text.utf8)) as? [String: Double])["t"]
            #expect(value.map { (15...28).contains($0) } == true, "second \(second): \(value ?? .nan)")
        }
    }

    @Test func aRejectionsKindLeavesOutWhatTheSenderWrote() {
        let spec: FieldSpec = {
            var spec = FieldSpec(name: "mode", generator: ChoiceRecipe(values: [.string("heat"), .integer(1)]))
            spec.command = .set
            return spec
        }()
        let device = DeviceSignals(
            payload: PayloadSpec(style: .flat, fields: [spec]), deviceID: "d", index: 1, seed: 9, sampleInterval: nil)
        var kinds: Set<String> = []
        for value in ["dry", "wet", "cold"] {
            do { try device.take([("mode", .text(value))]) } catch { kinds.insert(error.kind) }
        }
        #expect(kinds == ["field 'mode' is one of its choices"])
        #expect(throws: Never.self, "a number choice sent as text, as a template quotes it") { try device.take([("mode", .text("1"))]) }
    }
}

/// Issue 14, item 5: with one seed, the same commands at the same ticks give the same payloads.
@Suite struct CommandDeterminismTests {
    private func run(seed: UInt64, commandsAt: [Int: [(field: String, value: CommandValue)]]) throws -> [String] {
        var target = FieldSpec(
            name: "target", generator: RandomWalkRecipe(start: 20, step: 0.2, min: 10, max: 30, meanReversion: 0.1), decimals: 3)
        target.command = .setpoint(perSecond: 0.2)
        var light = FieldSpec(name: "light", generator: BoolRecipe(probability: 0.5))
        light.command = .set
        let device = DeviceSignals(
            payload: PayloadSpec(style: .flat, fields: [target, light]), deviceID: "d-1", index: 1, seed: seed, sampleInterval: 0.5)
        var buffer = PayloadBuffer()
        return try (0..<200).map { tick in
            if let values = commandsAt[tick] { try device.take(values) }
            buffer.removeAll()
            device.encode(elapsed: Double(tick), wallClock: 1_800_000_000 + Double(tick), into: &buffer)
            return buffer.text
        }
    }

    @Test func theSameCommandsAtTheSameTicksGiveTheSamePayloads() throws {
        let commands: [Int: [(field: String, value: CommandValue)]] = [
            10: [("target", .number(25))], 50: [("light", .bool(true))], 120: [("target", .number(15))],
        ]
        let first = try run(seed: 42, commandsAt: commands)
        #expect(try run(seed: 42, commandsAt: commands) == first)
        #expect(
            try run(seed: 42, commandsAt: [11: [("target", .number(25))], 50: [("light", .bool(true))], 120: [("target", .number(15))]])
                != first, "a tick later, another run")
        #expect(try run(seed: 43, commandsAt: commands) != first)
    }
}
