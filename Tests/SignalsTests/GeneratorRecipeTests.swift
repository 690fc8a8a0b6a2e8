import Testing
import Signals

@Suite struct GeneratorRecipeTests {
    @Test func everyGeneratorIsListed() {
        #expect(
            Generators.keys == [
                "constant", "counter", "uniform", "gaussian", "sine", "randomWalk", "choice", "dwell", "integral", "setpoint", "bool",
                "sequence", "timestamp", "uuid", "replay", "accelerometer", "location", "bytes", "expr",
            ])
    }

    @Test func unknownKeyHasNoRecipe() throws {
        #expect(try Generators.recipe(named: "teleport", parameters: TestParameters()) == nil)
    }

    @Test func errorsNameTheKey() {
        #expect(
            parameterError("sine", TestParameters(["min": .number(0), "max": .number(1), "period": .number(0)]))
                == ParameterError(key: "period", "period must be greater than zero"))
        #expect(
            parameterError("sine", TestParameters(["min": .number(0), "max": .number(1)]))
                == ParameterError(key: "period", "period is required"))
        #expect(
            parameterError(
                "sine",
                TestParameters([
                    "min": .number(0), "max": .number(1), "period": .number(1),
                    "phase": .bool(true),
                ]))?.key == "phase")
        #expect(
            parameterError("accelerometer", TestParameters(shorthand: "w"))
                == ParameterError(key: nil, "axis must be one of x, y, z, magnitude, found 'w'"))
        #expect(parameterError("accelerometer", TestParameters(["axis": .string("w")]))?.key == "axis")
        #expect(
            parameterError("accelerometer", TestParameters(["axis": .string("x"), "motion": .string("flying")]))
                == ParameterError(key: "motion", "motion must be one of still, walking, running, shaking, vehicle, found 'flying'"))
        #expect(parameterError("accelerometer", TestParameters(["axis": .string("x"), "noise": .number(-1)]))?.key == "noise")
        #expect(
            parameterError("uniform", TestParameters(["max": .number(1)]))
                == ParameterError(key: "min", "min is required"))
        #expect(parameterError("uniform", TestParameters(["min": .number(1), "max": .number(1)]))?.key == "max")
        #expect(parameterError("uniform", TestParameters(["min": .string("low"), "max": .number(1)]))?.key == "min")
        #expect(parameterError("uniform", TestParameters(shorthand: "3"))?.key == nil)
        #expect(
            parameterError("timestamp", TestParameters(["unit": .string("h")]))
                == ParameterError(key: "unit", "unit must be s, ms, us, ns or iso8601, found 'h'"))
        #expect(parameterError("timestamp", TestParameters(shorthand: "h"))?.key == nil)
        #expect(parameterError("counter", TestParameters(shorthand: "abc"))?.key == nil)
        #expect(parameterError("counter", TestParameters(["step": .string("big")]))?.key == "step")
        #expect(
            parameterError("constant", TestParameters())
                == ParameterError(key: "value", "value is required"))
    }

    @Test func constantShorthandKeepsItsType() throws {
        func value(_ shorthand: String) throws -> SignalValue? {
            (try recipe("constant", TestParameters(shorthand: shorthand)) as? ConstantRecipe)?.value
        }
        #expect(try value("5") == .number(5))
        #expect(try value("-0.25") == .number(-0.25))
        #expect(try value("true") == .bool(true))
        #expect(try value("false") == .bool(false))
        #expect(try value("hello") == .string("hello"))
        #expect(try value("nan") == .string("nan"))
        #expect(try value("") == .string(""))
    }

    @Test func constantMapForm() throws {
        func value(_ parameter: TestParameters.Value) throws -> SignalValue? {
            (try recipe("constant", TestParameters(["value": parameter])) as? ConstantRecipe)?.value
        }
        #expect(try value(.number(3)) == .number(3))
        #expect(try value(.bool(false)) == .bool(false))
        #expect(try value(.string("7")) == .string("7"))
    }

    @Test func defaults() throws {
        let counter = try #require(try recipe("counter", TestParameters()) as? CounterRecipe)
        #expect(counter.start == 0 && counter.step == 1)
        let timestamp = try #require(try recipe("timestamp", TestParameters()) as? TimestampRecipe)
        #expect(timestamp.unit == .seconds)
        let accelerometer = try #require(try recipe("accelerometer", TestParameters(shorthand: "z")) as? AccelerometerRecipe)
        #expect(accelerometer.axis == .z && accelerometer.motion == .still)
        let sine = try #require(
            try recipe(
                "sine",
                TestParameters([
                    "min": .number(0), "max": .number(1),
                    "period": .duration(60),
                ])) as? SineRecipe)
        #expect(sine.phase.fraction == 0 && sine.period == 60)
    }

    @Test func sinePhaseAsFractionOrDuration() throws {
        let base: [String: TestParameters.Value] = ["min": .number(0), "max": .number(1), "period": .duration(8)]
        let fraction = try #require(try recipe("sine", TestParameters(base.merging(["phase": .number(0.25)]) { $1 })) as? SineRecipe)
        #expect(fraction.phase.fraction == 0.25)
        let offset = try #require(try recipe("sine", TestParameters(base.merging(["phase": .duration(2)]) { $1 })) as? SineRecipe)
        #expect(offset.phase.fraction == 0.25)
    }
}

@Suite struct ConstantTemplateTests {
    @Test func aConstantStringIsFilledPerDevice() throws {
        let spec = PayloadSpec(
            style: .flat,
            fields: [
                FieldSpec(name: "vehicle", generator: ConstantRecipe(value: .string("{id} #{index}"))),
                FieldSpec(name: "plain", generator: ConstantRecipe(value: .string("{other}"))),
            ])
        let signals = DeviceSignals(payload: spec, deviceID: "van-7", index: 7, seed: 1, sampleInterval: nil)
        var buffer = PayloadBuffer()
        signals.encode(elapsed: 0, wallClock: 0, into: &buffer)
        #expect(buffer.text == #"{"vehicle":"van-7 #7","plain":"{other}"}"#)
    }
}
