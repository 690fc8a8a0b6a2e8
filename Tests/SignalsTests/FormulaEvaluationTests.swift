import Signals
import Testing

/// Issue 40, item 1: what a formula field publishes: the values the other fields show in the
/// same message, whichever comes first, the device's own values, and seeded randomness.
@Suite struct FormulaEvaluationTests {
    static func formula(_ name: String, _ text: String, decimals: Int? = nil) throws -> FieldSpec {
        FieldSpec(name: name, generator: try FormulaRecipe(text), decimals: decimals)
    }

    static func constant(_ name: String, _ value: SignalValue, decimals: Int? = nil) -> FieldSpec {
        FieldSpec(name: name, generator: ConstantRecipe(value: value), decimals: decimals)
    }

    /// A flat-payload device of `fields`, their formulas checked.
    static func device(_ fields: [FieldSpec], id: String = "dev-1", index: Int = 1, seed: UInt64 = 42) throws -> DeviceSignals {
        let (checked, problems) = PayloadFormulas.check(fields, closest: { _, _ in nil })
        try #require(problems.isEmpty, "\(problems)")
        return DeviceSignals(
            payload: PayloadSpec(style: .flat, fields: checked), deviceID: id, index: index, seed: seed, sampleInterval: nil)
    }

    static func publish(_ device: DeviceSignals, elapsed: Double = 0) -> String {
        var buffer = PayloadBuffer()
        device.encode(elapsed: elapsed, wallClock: 1_800_000_000 + elapsed, into: &buffer)
        return buffer.text
    }

    /// 21.44 is published as 21.4, and 21.4 * 1.8 + 32 is 70.52, where 21.44 would give 70.592.
    @Test func aFormulaReadsTheValuesAsPublished() throws {
        let device = try Self.device([
            Self.constant("temp_c", .number(21.44), decimals: 1), try Self.formula("temp_f", "temp_c * 1.8 + 32", decimals: 2),
        ])
        #expect(Self.publish(device) == #"{"temp_c":21.4,"temp_f":70.52}"#)
    }

    /// A formula before the fields it reads sees their values of the same message, and formulas
    /// read formulas, in whatever order they are written.
    @Test func aFormulaReadsFieldsAfterItAndOtherFormulas() throws {
        let device = try Self.device([
            try Self.formula("c", "b + 1"), try Self.formula("b", "n * 10"), FieldSpec(name: "n", generator: CounterRecipe()),
        ])
        #expect(Self.publish(device, elapsed: 0) == #"{"c":1,"b":0,"n":0}"#)
        #expect(Self.publish(device, elapsed: 1) == #"{"c":11,"b":10,"n":1}"#)
        #expect(Self.publish(device, elapsed: 2) == #"{"c":21,"b":20,"n":2}"#)
    }

    @Test func aMemberOfAGroupIsReadByItsPath() throws {
        let device = try Self.device([
            FieldSpec(name: "location", fields: [Self.constant("lat", .number(52.5)), Self.constant("lon", .number(13.4))]),
            try Self.formula("sum", "location.lat + location.lon"),
        ])
        #expect(Self.publish(device) == #"{"location":{"lat":52.5,"lon":13.4},"sum":65.9}"#)
    }

    @Test func textAndBooleanResults() throws {
        let device = try Self.device([
            Self.constant("power", .number(2.5)), Self.constant("mode", .string("eco")),
            try Self.formula("state", #"power > 2 ? "high" : "low""#), try Self.formula("eco", #"mode == "eco" && power < 3"#),
            try Self.formula("label", #"mode != "eco" ? "other" : mode"#),
        ])
        #expect(Self.publish(device) == #"{"power":2.5,"mode":"eco","state":"high","eco":true,"label":"eco"}"#)
    }

    @Test func theDevicesOwnValues() throws {
        let device = try Self.device(
            [
                try Self.formula("tenfold", "index * 10"), try Self.formula("me", #"id == "dev-3""#),
                try Self.formula("name", "id"), try Self.formula("seconds", "t + time"),
            ], id: "dev-3", index: 3)
        #expect(Self.publish(device, elapsed: 1.25) == #"{"tenfold":30,"me":true,"name":"dev-3","seconds":2.5}"#)
    }

    /// A field named like one of the device's values is the field.
    @Test func aFieldComesBeforeTheDevicesValues() throws {
        let device = try Self.device([Self.constant("index", .number(7)), try Self.formula("f", "index + 1")], index: 1)
        #expect(Self.publish(device) == #"{"index":7,"f":8}"#)
    }

    @Test(arguments: [
        ("sqrt(16)", "4"), ("abs(-2.5)", "2.5"), ("floor(2.7)", "2"), ("ceil(2.1)", "3"), ("round(2.5)", "3"),
        ("round(-2.5)", "-3"), ("round(3.14159, 2)", "3.14"), ("min(3, 1, 2)", "1"), ("max(3, 1, 2)", "3"),
        ("clamp(5, 0, 3)", "3"), ("clamp(-1, 0, 3)", "0"), ("pow(2, 10)", "1024"), ("exp(0)", "1"), ("log(1)", "0"),
        ("log10(1000)", "3"), ("sin(0)", "0"), ("cos(0)", "1"), ("tan(0)", "0"), ("asin(1) * 2 == pi", "true"),
        ("acos(1)", "0"), ("atan(0)", "0"), ("atan2(1, 1) * 4 == pi", "true"),
        // JSON has no infinities nor NaN: a division by zero is null.
        ("1 / 0", "null"), ("sqrt(-1)", "null"),
    ])
    func functions(formula: String, value: String) throws {
        #expect(try FormulaParserTests.value(formula) == value, "\(formula)")
    }

    /// A formula field's modifiers work as any field's: clamps, then rounding.
    @Test func theFieldsModifiersApply() throws {
        var field = try Self.formula("f", "t * 10", decimals: 1)
        field.max = 5
        let device = try Self.device([field])
        #expect(Self.publish(device, elapsed: 0.25) == #"{"f":2.5}"#)
        #expect(Self.publish(device, elapsed: 1) == #"{"f":5.0}"#)
    }

    /// A formula whose field drops out of the message is null: it has nothing to work with.
    @Test(arguments: [FieldFaults.Dropout.Mode.null, .omit])
    func aFieldThatDropsOutMakesTheFormulaNull(mode: FieldFaults.Dropout.Mode) throws {
        var source = FieldSpec(name: "n", generator: CounterRecipe())
        source.faults.dropout = FieldFaults.Dropout(probability: 1, mode: mode)
        let device = try Self.device([source, try Self.formula("f", "n + 1"), try Self.formula("g", "1")])
        #expect(Self.publish(device) == (mode == .null ? #"{"n":null,"f":null,"g":1}"# : #"{"f":null,"g":1}"#))
    }

    /// A field a formula reads is made once per message: its faults fire once, counted once, and
    /// the formula sees what the message shows.
    @Test func aFieldReadByAFormulaIsMadeOncePerMessage() throws {
        var source = FieldSpec(name: "n", generator: CounterRecipe())
        source.faults.dropout = FieldFaults.Dropout(probability: 0.5, mode: .null)
        source.faults.spike = FieldFaults.Spike(probability: 0.5, magnitude: 100)
        let device = try Self.device([try Self.formula("before", "n * 2"), source, try Self.formula("after", "n * 2")])
        var nulls = 0
        for step in 0..<200 {
            let payload = Self.publish(device, elapsed: Double(step))
            let values = numbers(in: payload)
            if payload.contains(#""n":null"#) {
                nulls += 1
                #expect(payload == #"{"before":null,"n":null,"after":null}"#)
            } else {
                #expect(values.count == 3 && values[0] == values[1] * 2 && values[2] == values[0], "\(payload)")
            }
        }
        #expect(nulls > 50 && nulls < 150)
        #expect(device.faultCounts.dropout == nulls)
    }

    /// `random()` and `gaussian(mean, sd)` draw from the run's seed, the device's id and the
    /// field's name: the same values for the same three, others for another.
    @Test func randomnessIsSeeded() throws {
        func values(id: String, seed: UInt64, field: String = "r") throws -> [String] {
            let device = try Self.device(
                [try Self.formula(field, "random()", decimals: 6), try Self.formula("g", "gaussian(10, 2)", decimals: 6)], id: id,
                seed: seed)
            return (0..<50).map { Self.publish(device, elapsed: Double($0)).replacingOccurrences(of: "\"\(field)\"", with: "\"r\"") }
        }
        let first = try values(id: "a", seed: 1)
        #expect(try values(id: "a", seed: 1) == first)
        #expect(try values(id: "b", seed: 1) != first)
        #expect(try values(id: "a", seed: 2) != first)
        #expect(try values(id: "a", seed: 1, field: "other") != first)
        let units = first.map { numbers(in: $0)[0] }
        #expect(units.allSatisfy { (0..<1).contains($0) } && Set(units).count == 50)
        let gaussians = first.map { numbers(in: $0)[1] }
        let mean = gaussians.reduce(0, +) / 50
        #expect(mean > 9 && mean < 11)
    }

    /// Two calls draw from streams of their own: the same formula with each call alone gives
    /// the same draws.
    @Test func eachCallHasAStreamOfItsOwn() throws {
        let both = try Self.device([try Self.formula("r", "random() * 1000 + random()", decimals: 9)])
        let first = try Self.device([try Self.formula("r", "random() * 1000 + 0 * random()", decimals: 9)])
        for step in 0..<10 {
            let value = numbers(in: Self.publish(both, elapsed: Double(step)))[0]
            let alone = numbers(in: Self.publish(first, elapsed: Double(step)))[0]
            #expect((value - alone) >= 0 && (value - alone) < 1)
        }
    }
}
