import Testing
import Signals

@Suite struct DeviceSignalsTests {
    @Test func milkcocoaBytes() {
        var device = DeviceDriver([
            FieldSpec(name: "A", generator: ConstantRecipe(value: .number(1.5)), decimals: 4),
            FieldSpec(name: "B", generator: ConstantRecipe(value: .string(#"x"y"#)), decimals: 4),
        ])
        #expect(device.publish() == #"{"params":{"A":1.5000,"B":"x\"y"}}"#)
        #expect(device.publish() == #"{"params":{"A":1.5000,"B":"x\"y"}}"#)
    }

    @Test func flatBytes() {
        var device = DeviceDriver(
            [
                FieldSpec(name: "Accel_X", generator: ConstantRecipe(value: .number(0.0123)), decimals: 4),
                FieldSpec(name: "Accel_Y", generator: ConstantRecipe(value: .number(-0.99809)), decimals: 4),
                FieldSpec(name: "on", generator: ConstantRecipe(value: .bool(true))),
                FieldSpec(name: #"we"ird"#, generator: ConstantRecipe(value: .number(2))),
            ], style: .flat)
        #expect(device.publish() == #"{"Accel_X":0.0123,"Accel_Y":-0.9981,"on":true,"we\"ird":2}"#)
    }

    @Test func emptyPayloads() {
        var milkcocoa = DeviceDriver([])
        #expect(milkcocoa.publish() == #"{"params":{}}"#)
        var flat = DeviceDriver([], style: .flat)
        #expect(flat.publish() == "{}")
    }

    @Test func appendsToWhatTheBufferHolds() {
        let signals = DeviceSignals(
            payload: PayloadSpec(style: .flat, fields: [FieldSpec(name: "n", generator: CounterRecipe())]),
            deviceID: "d", index: 1, seed: 0, sampleInterval: nil)
        var buffer = PayloadBuffer()
        buffer.append(contentsOf: "topic ".utf8)
        signals.encode(elapsed: 0, wallClock: 0, into: &buffer)
        #expect(buffer.text == #"topic {"n":0}"#)
    }

    @Test func counterCountsPublishes() {
        var device = DeviceDriver(
            [
                FieldSpec(name: "n", generator: CounterRecipe()),
                FieldSpec(name: "m", generator: CounterRecipe(start: 10, step: 2.5)),
                FieldSpec(name: "k", generator: CounterRecipe(start: 100, step: -1), decimals: 2),
            ], style: .flat, sampleInterval: 0.1)
        // Publishing faster than sampling still counts every publish.
        #expect(device.publish(elapsed: 0) == #"{"n":0,"m":10,"k":100.00}"#)
        #expect(device.publish(elapsed: 0.01) == #"{"n":1,"m":12.5,"k":99.00}"#)
        #expect(device.publish(elapsed: 5) == #"{"n":2,"m":15,"k":98.00}"#)
    }

    @Test func sineAtKnownTimes() {
        var device = DeviceDriver(
            [
                FieldSpec(name: "s", generator: SineRecipe(min: 0, max: 10, period: 4), decimals: 6),
                FieldSpec(name: "q", generator: SineRecipe(min: -1, max: 1, period: 4, phase: WavePhase(fraction: 0.25)), decimals: 6),
            ], style: .flat)
        #expect(device.publish(elapsed: 0) == #"{"s":5.000000,"q":1.000000}"#)
        #expect(device.publish(elapsed: 1) == #"{"s":10.000000,"q":0.000000}"#)
        #expect(device.publish(elapsed: 2) == #"{"s":5.000000,"q":-1.000000}"#)
        #expect(device.publish(elapsed: 3) == #"{"s":0.000000,"q":0.000000}"#)
        #expect(device.publish(elapsed: 4000.5) == #"{"s":8.535534,"q":0.707107}"#)
    }

    @Test func sineFollowsTheLatestSample() {
        var device = DeviceDriver(
            [FieldSpec(name: "s", generator: SineRecipe(min: 0, max: 10, period: 4), decimals: 3)],
            style: .flat, sampleInterval: 0.5)
        // At 1.2 s the latest sample was taken at 1.0 s, the crest.
        #expect(device.publish(elapsed: 1.2) == #"{"s":10.000}"#)
    }

    @Test func uniformStaysInBoundsWithTheRightMoments() throws {
        let uniform = try recipe("uniform", TestParameters(["min": .number(2), "max": .number(4)]))
        var device = DeviceDriver([FieldSpec(name: "u", generator: uniform)], style: .flat)
        let values = (0..<20_000).map { _ in numbers(in: device.publish())[0] }
        #expect(values.allSatisfy { $0 >= 2 && $0 < 4 })
        #expect(abs(mean(values) - 3) < 0.02)
        #expect(abs(standardDeviation(values) - 2 / 12.0.squareRoot()) < 0.01)
    }

    @Test func gaussianNoiseHasTheAskedSigma() {
        var device = DeviceDriver(
            [FieldSpec(name: "v", generator: ConstantRecipe(value: .number(10)), noise: 0.5)],
            style: .flat)
        let values = (0..<20_000).map { _ in numbers(in: device.publish())[0] }
        #expect(abs(mean(values) - 10) < 0.02)
        #expect(abs(standardDeviation(values) - 0.5) < 0.01)
    }

    @Test func clampsApplyAfterNoise() {
        var device = DeviceDriver(
            [
                FieldSpec(
                    name: "v", generator: ConstantRecipe(value: .number(0)), noise: 1,
                    min: -0.5, max: 0.5)
            ], style: .flat)
        let values = (0..<2000).map { _ in numbers(in: device.publish())[0] }
        #expect(values.allSatisfy { $0 >= -0.5 && $0 <= 0.5 })
        #expect(values.contains(-0.5) && values.contains(0.5))
    }

    @Test func modifiersLeaveStringsAndBoolsAlone() {
        var device = DeviceDriver(
            [
                FieldSpec(name: "s", generator: ConstantRecipe(value: .string("x")), decimals: 2, noise: 1, min: 0, max: 1),
                FieldSpec(name: "b", generator: ConstantRecipe(value: .bool(false)), decimals: 2, noise: 1),
                FieldSpec(name: "n", generator: CounterRecipe(start: 5), max: 3),
            ], style: .flat)
        #expect(device.publish() == #"{"s":"x","b":false,"n":3}"#)
    }

    @Test func timestampFormats() {
        var device = DeviceDriver(
            [
                FieldSpec(name: "s", generator: TimestampRecipe(unit: .seconds)),
                FieldSpec(name: "ms", generator: TimestampRecipe(unit: .milliseconds)),
                FieldSpec(name: "iso", generator: TimestampRecipe(unit: .iso8601)),
            ], style: .flat)
        #expect(
            device.publish(wallClock: 1_795_953_600.125)
                == #"{"s":1795953600,"ms":1795953600125,"iso":"2026-11-29T12:00:00.125Z"}"#)
        #expect(
            device.publish(wallClock: 1_709_251_199.5)
                == #"{"s":1709251199,"ms":1709251199500,"iso":"2024-02-29T23:59:59.500Z"}"#)
        #expect(device.publish(wallClock: .nan) == #"{"s":null,"ms":null,"iso":null}"#)
    }

    /// A device using every kind of generator and modifier, sampled at 10 Hz.
    func busyDevice(id: String = "phone-1", seed: UInt64 = 42) throws -> DeviceDriver {
        DeviceDriver(
            [
                FieldSpec(name: "Accel_X", generator: AccelerometerRecipe(axis: .x, motion: .walking), decimals: 4),
                FieldSpec(name: "Accel_Y", generator: AccelerometerRecipe(axis: .y, motion: .walking), decimals: 4),
                FieldSpec(name: "u", generator: try recipe("uniform", TestParameters(["min": .number(0), "max": .number(1)]))),
                FieldSpec(name: "t", generator: SineRecipe(min: 18, max: 26, period: 60), decimals: 2, noise: 0.1),
                FieldSpec(name: "n", generator: CounterRecipe()),
            ], id: id, seed: seed, sampleInterval: 0.1)
    }

    func run(_ device: inout DeviceDriver, publishes: Int = 100) -> [String] {
        (0..<publishes).map { device.publish(elapsed: Double($0) * 0.1, wallClock: 1_795_953_600 + Double($0) * 0.1) }
    }

    @Test func sameSeedAndIDGiveTheSameBytes() throws {
        var first = try busyDevice()
        var second = try busyDevice()
        var otherID = try busyDevice(id: "phone-2")
        var otherSeed = try busyDevice(seed: 43)
        let payloads = run(&first)
        #expect(payloads == run(&second))
        #expect(Set(payloads).count == payloads.count)
        let fromOtherID = run(&otherID)
        let fromOtherSeed = run(&otherSeed)
        #expect(zip(payloads, fromOtherID).allSatisfy { $0 != $1 })
        #expect(zip(payloads, fromOtherSeed).allSatisfy { $0 != $1 })
    }

    @Test func addingAFieldLeavesTheOthersAlone() throws {
        let uniform = try recipe("uniform", TestParameters(["min": .number(0), "max": .number(1)]))
        var alone = DeviceDriver([FieldSpec(name: "u", generator: uniform)], style: .flat)
        var withOthers = DeviceDriver(
            [
                FieldSpec(name: "v", generator: uniform, noise: 1),
                FieldSpec(name: "u", generator: uniform),
            ], style: .flat)
        for _ in 0..<50 {
            #expect(numbers(in: alone.publish())[0] == numbers(in: withOthers.publish())[1])
        }
    }

    @Test func catchUpMakesValuesIndependentOfWhenEncodeRuns() throws {
        var everySample = try busyDevice()
        var onlyAtTheEnd = try busyDevice()
        for tenth in 0..<10 {
            _ = everySample.publish(elapsed: Double(tenth) / 10)
        }
        let stepwise = numbers(in: everySample.publish(elapsed: 1.0).replacingParams())
        let atOnce = numbers(in: onlyAtTheEnd.publish(elapsed: 1.0).replacingParams())
        // Everything but the publish counter matches.
        #expect(stepwise.dropLast() == atOnce.dropLast())
    }

    @Test func longGapsAreBoundedAndStillDeterministic() throws {
        var before = try busyDevice()
        var after = try busyDevice()
        _ = before.publish(elapsed: 0)
        // 10⁸ samples due: only the last `maximumCatchUpSamples` are taken.
        let late = before.publish(elapsed: 10_000_000)
        #expect(
            numbers(in: late.replacingParams()).dropLast() == numbers(in: after.publish(elapsed: 10_000_000).replacingParams()).dropLast())
    }

    @Test func everyDueSampleIsTakenOnceInOrder() {
        var stepwise = DeviceDriver(
            [FieldSpec(name: "c", generator: SampleCountingRecipe())], style: .flat,
            sampleInterval: 0.1)
        var atOnce = DeviceDriver(
            [FieldSpec(name: "c", generator: SampleCountingRecipe())], style: .flat,
            sampleInterval: 0.1)
        #expect(stepwise.publish(elapsed: 0) == #"{"c":"1/0"}"#)
        for tenth in 1..<10 {
            _ = stepwise.publish(elapsed: Double(tenth) * 0.1)
        }
        // 0.3 / 0.1 is 2.9999999999999996: the tolerance still takes sample 3 at 0.3 s.
        #expect(stepwise.publish(elapsed: 1.0) == #"{"c":"11/10"}"#)
        #expect(atOnce.publish(elapsed: 1.0) == #"{"c":"11/10"}"#)
        #expect(atOnce.publish(elapsed: 1.05) == #"{"c":"11/10"}"#)
        #expect(atOnce.publish(elapsed: 0.3) == #"{"c":"11/10"}"#)
    }

    @Test func historyFreeModelsSkipToTheLatestSample() {
        var device = DeviceDriver(
            [FieldSpec(name: "c", generator: SampleCountingRecipe(dependsOnHistory: false))],
            style: .flat, sampleInterval: 0.1)
        #expect(device.publish(elapsed: 0) == #"{"c":"1/0"}"#)
        #expect(device.publish(elapsed: 1.0) == #"{"c":"2/10"}"#)
        #expect(device.publish(elapsed: 1.01) == #"{"c":"2/10"}"#)
    }

    @Test func catchUpIsBounded() {
        var device = DeviceDriver(
            [FieldSpec(name: "c", generator: SampleCountingRecipe())], style: .flat,
            sampleInterval: 0.1)
        _ = device.publish(elapsed: 0)
        #expect(device.publish(elapsed: 1_000_000) == #"{"c":"100001/10000000"}"#)
    }

    @Test func withoutASampleRateEachPublishIsOneSample() {
        var device = DeviceDriver([FieldSpec(name: "c", generator: SampleCountingRecipe())], style: .flat)
        #expect(device.publish(elapsed: 0) == #"{"c":"1/0"}"#)
        #expect(device.publish(elapsed: 100) == #"{"c":"2/1"}"#)
    }

    @Test func timeGoingBackwardsRepeatsTheLatestSample() throws {
        var device = try busyDevice()
        let first = numbers(in: device.publish(elapsed: 2).replacingParams())
        let second = numbers(in: device.publish(elapsed: 1).replacingParams())
        #expect(first.dropLast() == second.dropLast())
    }
}

extension String {
    /// A milkcocoa payload as the flat object inside it.
    func replacingParams() -> String {
        hasPrefix(#"{"params":"#) ? String(dropFirst(10).dropLast()) : self
    }
}
