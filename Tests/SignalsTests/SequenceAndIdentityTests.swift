import Testing
import Signals

/// Generators whose values are not statistics: uuid, sequence, timestamp in microseconds.
@Suite struct SequenceAndIdentityTests {
    static func isVersion4(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (position, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(position) {
                if byte != UInt8(ascii: "-") { return false }
            } else if !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                && !(UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            {
                return false
            }
        }
        // Version nibble 4; variant 10xx: 8, 9, a or b.
        return bytes[14] == UInt8(ascii: "4") && "89ab".utf8.contains(bytes[19])
    }

    @Test func uuidIsVersion4TextNewPerPublish() throws {
        let uuid = try recipe("uuid", TestParameters())
        let values = GeneratorHarness(uuid).values(10_000).compactMap(\.string)
        #expect(values.count == 10_000)
        #expect(values.allSatisfy(Self.isVersion4))
        #expect(Set(values).count == 10_000)
        // Every other nibble is random: all sixteen digits turn up in the first position.
        #expect(Set(values.map { $0.first! }).count == 16)
    }

    @Test func uuidIsDeterministic() throws {
        let uuid = try recipe("uuid", TestParameters())
        #expect(GeneratorHarness(uuid, id: "a").values(100) == GeneratorHarness(uuid, id: "a").values(100))
        #expect(GeneratorHarness(uuid, id: "a").values(100) != GeneratorHarness(uuid, id: "b").values(100))
        #expect(GeneratorHarness(uuid, seed: 1).values(10) != GeneratorHarness(uuid, seed: 2).values(10))
    }

    @Test func uuidPerDeviceIsFixedForTheDevice() throws {
        let uuid = try recipe("uuid", TestParameters(["perDevice": .bool(true)]))
        let values = GeneratorHarness(uuid, id: "a").values(50)
        #expect(values.allSatisfy { $0 == values[0] })
        #expect(Self.isVersion4(try #require(values[0].string)))
        #expect(GeneratorHarness(uuid, id: "b").next() != values[0])
        #expect(GeneratorHarness(uuid, id: "a").next() == values[0])
    }

    @Test func uuidTakesNoShorthand() {
        #expect(parameterError("uuid", TestParameters(shorthand: "v4"))?.key == nil)
        #expect(parameterError("uuid", TestParameters(["perDevice": .string("yes")]))?.key == "perDevice")
    }

    @Test func sequenceLoopsInOrder() throws {
        let sequence = try recipe("sequence", TestParameters(["values": .list(["off", "2", "true"])]))
        let values = GeneratorHarness(sequence).values(7)
        #expect(values == [.string("off"), .number(2), .bool(true), .string("off"), .number(2), .bool(true), .string("off")])
    }

    @Test func sequenceAndChoiceNeedValues() {
        #expect(parameterError("sequence", TestParameters())?.key == "values")
        #expect(parameterError("sequence", TestParameters(["values": .list([])]))?.key == "values")
        #expect(parameterError("sequence", TestParameters(shorthand: "a"))?.key == nil)
        #expect(parameterError("choice", TestParameters())?.key == "values")
        #expect(
            parameterError("choice", TestParameters(["values": .list(["a", "b"]), "weights": .list(["1"])]))?.key
                == "weights")
        #expect(
            parameterError("choice", TestParameters(["values": .list(["a", "b"]), "weights": .list(["1", "-1"])]))?.key
                == "weights")
        #expect(
            parameterError("choice", TestParameters(["values": .list(["a", "b"]), "weights": .list(["0", "0"])]))
                == ParameterError(key: "weights", "weights must not all be zero"))
        #expect(
            parameterError("choice", TestParameters(["values": .list(["a"]), "weights": .list(["heavy"])]))?.key
                == "weights")
    }

    @Test func otherParameterErrorsNameTheKey() {
        #expect(
            parameterError("gaussian", TestParameters(["stddev": .number(-1)]))
                == ParameterError(key: "stddev", "stddev must not be negative"))
        #expect(parameterError("gaussian", TestParameters(shorthand: "warm"))?.key == nil)
        #expect(parameterError("bool", TestParameters(["probability": .number(1.5)]))?.key == "probability")
        #expect(parameterError("bool", TestParameters(shorthand: "often"))?.key == nil)
        #expect(parameterError("randomWalk", TestParameters())?.key == "step")
        #expect(parameterError("randomWalk", TestParameters(["step": .number(-1)]))?.key == "step")
        #expect(
            parameterError("randomWalk", TestParameters(["step": .number(1), "min": .number(5), "max": .number(5)]))?.key
                == "max")
        #expect(
            parameterError("randomWalk", TestParameters(["step": .number(1), "start": .number(11), "max": .number(10)]))?.key
                == "start")
        #expect(
            parameterError("randomWalk", TestParameters(["step": .number(1), "meanReversion": .number(2)]))?.key
                == "meanReversion")
        #expect(
            parameterError("randomWalk", TestParameters(["step": .number(1), "peakAt": .string("14:00")]))?.key
                == "peakAt")
        #expect(
            parameterError("randomWalk", TestParameters(["step": .number(1), "period": .duration(60)]))?.key
                == "period")
        #expect(
            parameterError("randomWalk", TestParameters(["step": .number(1), "amplitude": .number(-2)]))?.key
                == "amplitude")
    }

    @Test func randomWalkStartsFromTheMiddleOrTheMean() throws {
        let middle = try #require(
            try recipe(
                "randomWalk",
                TestParameters([
                    "step": .number(1), "min": .number(10),
                    "max": .number(20),
                ])) as? RandomWalkRecipe)
        #expect(middle.start == 15 && middle.mean == 15)
        let mean = try #require(
            try recipe("randomWalk", TestParameters(["step": .number(1), "mean": .number(3)]))
                as? RandomWalkRecipe)
        #expect(mean.start == 3)
    }

    @Test func timestampInMicroseconds() throws {
        let micro = try #require(try recipe("timestamp", TestParameters(shorthand: "us")) as? TimestampRecipe)
        #expect(micro.unit == .microseconds)
        let instant = PublishInstant(
            index: 0, sample: SampleInstant(index: 0, time: 0), elapsed: 0,
            wallClock: 1_700_000_000.123456)
        #expect(micro.value(at: instant) == .integer(1_700_000_000_123_456))
        let named = try #require(try recipe("timestamp", TestParameters(["unit": .string("µs")])) as? TimestampRecipe)
        #expect(named.unit == .microseconds)
    }
}
