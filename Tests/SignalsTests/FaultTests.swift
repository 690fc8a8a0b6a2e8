import Testing
import Signals

@Suite struct FaultTests {
    /// One field `v` of constant `value` with `faults`, flat.
    func device(_ value: Double = 10, faults: FieldFaults, id: String = "d-1", seed: UInt64 = 7) -> DeviceDriver {
        DeviceDriver(
            [FieldSpec(name: "v", generator: ConstantRecipe(value: .number(value)), faults: faults)],
            style: .flat, id: id, seed: seed)
    }

    /// The value of `v` in each of `count` publishes one second apart; `nil` where it dropped out.
    func values(_ device: inout DeviceDriver, count: Int, interval: Double = 1) -> [Double?] {
        (0..<count).map { index in
            let payload = device.publish(elapsed: Double(index) * interval)
            return numbers(in: payload).first
        }
    }

    @Test func spikesFireAtTheirProbabilityWithBothSigns() {
        var spiky = device(faults: FieldFaults(spike: .init(probability: 0.05, magnitude: 3)))
        let all = values(&spiky, count: 20_000).map { $0! }
        let up = all.filter { $0 == 13 }.count
        let down = all.filter { $0 == 7 }.count
        #expect(all.allSatisfy { $0 == 10 || $0 == 13 || $0 == 7 })
        // 1000 expected; σ ≈ 31.
        #expect(abs(up + down - 1000) < 130)
        #expect(abs(up - down) < 150)
        #expect(spiky.signals.faultCounts == FaultCounts(spike: up + down))
    }

    @Test func stuckHoldsTheLastValueForItsDuration() {
        // A counter makes a frozen value visible: it stops climbing.
        var device = DeviceDriver(
            [
                FieldSpec(
                    name: "v", generator: CounterRecipe(),
                    faults: FieldFaults(stuck: .init(probability: 0.02, duration: 5)))
            ],
            style: .flat)
        let all = (0..<5_000).map { numbers(in: device.publish(elapsed: Double($0)))[0] }
        var episodes = 0
        var index = 1
        while index < all.count {
            if all[index] == Double(index) {
                index += 1
                continue
            }
            // Stuck from `index`: the value of the publish before, for 5 publishes (5 s at 1/s),
            // unless a new episode starts right after.
            episodes += 1
            #expect(all[index] == all[index - 1])
            let end = Swift.min(index + 5, all.count)
            #expect(all[index..<end].allSatisfy { $0 == all[index - 1] }, "episode at \(index)")
            index = end
            if index < all.count && all[index] != Double(index) && all[index] != all[index - 1] {
                Issue.record("publish \(index) neither fresh nor a new episode")
            }
        }
        let counted = device.signals.faultCounts.stuck
        // A new episode may start the moment one ends; it then looks like one long freeze here.
        #expect(episodes <= counted && counted > 0)
        // Not stuck at least two times in three: 2 % of the fresh publishes start a 5 s freeze.
        let fresh = all.enumerated().filter { $0.element == Double($0.offset) }.count
        #expect(Double(fresh) / Double(all.count) > 0.85)
        #expect(abs(Double(counted) - 0.02 * Double(fresh)) < 40)
    }

    @Test func stuckAtProbabilityOneFreezesAtTheFirstValue() {
        var device = DeviceDriver(
            [
                FieldSpec(
                    name: "v", generator: CounterRecipe(start: 5),
                    faults: FieldFaults(stuck: .init(probability: 1, duration: 3)))
            ],
            style: .flat)
        let all = (0..<7).map { numbers(in: device.publish(elapsed: Double($0)))[0] }
        #expect(all == [5, 5, 5, 5, 5, 5, 5])
        // Episodes start at 0 s, 3 s and 6 s.
        #expect(device.signals.faultCounts == FaultCounts(stuck: 3))
    }

    @Test func driftAddsPerHourTimesHours() {
        var device = DeviceDriver(
            [
                FieldSpec(
                    name: "v", generator: ConstantRecipe(value: .number(20)), decimals: 6,
                    faults: FieldFaults(drift: .init(perHour: 1.5)))
            ], style: .flat)
        #expect(device.publish(elapsed: 0) == #"{"v":20.000000}"#)
        #expect(device.publish(elapsed: 1800) == #"{"v":20.750000}"#)
        #expect(device.publish(elapsed: 7200) == #"{"v":23.000000}"#)
        #expect(device.publish(elapsed: 36) == #"{"v":20.015000}"#)
        #expect(device.signals.faultCounts == FaultCounts(drift: 4))
    }

    @Test func dropoutFiresAtItsProbability() {
        var device = device(faults: FieldFaults(dropout: .init(probability: 0.1)))
        let all = values(&device, count: 10_000)
        let dropped = all.filter { $0 == nil }.count
        #expect(abs(dropped - 1000) < 120)
        #expect(device.signals.faultCounts == FaultCounts(dropout: dropped))
    }

    @Test func faultsOnlyChangeNumbersButDropoutTakesAnything() {
        let every = FieldFaults(spike: .init(probability: 1, magnitude: 1), stuck: nil, drift: .init(perHour: 3600))
        var device = DeviceDriver(
            [
                FieldSpec(name: "s", generator: ConstantRecipe(value: .string("ok")), faults: every),
                FieldSpec(name: "b", generator: ConstantRecipe(value: .bool(true)), faults: every),
                FieldSpec(
                    name: "d", generator: ConstantRecipe(value: .string("gone")),
                    faults: FieldFaults(dropout: .init(probability: 1, mode: .null))),
            ], style: .flat)
        #expect(device.publish(elapsed: 1) == #"{"s":"ok","b":true,"d":null}"#)
        #expect(device.signals.faultCounts == FaultCounts(dropout: 1))
    }

    @Test func integersWithFaultsStayIntegralWhenTheFaultIsWhole() {
        var device = DeviceDriver(
            [
                FieldSpec(
                    name: "n", generator: CounterRecipe(start: 100),
                    faults: FieldFaults(spike: .init(probability: 1, magnitude: 50)))
            ],
            style: .flat)
        let payload = device.publish()
        #expect(payload == #"{"n":150}"# || payload == #"{"n":50}"#)
    }

    static let everyFault = FieldFaults(
        spike: .init(probability: 0.1, magnitude: 5),
        stuck: .init(probability: 0.05, duration: 3),
        dropout: .init(probability: 0.1, mode: .omit),
        drift: .init(perHour: 100))

    func run(id: String, seed: UInt64, count: Int = 500) -> (payloads: [String], counts: FaultCounts) {
        var device = DeviceDriver(
            [
                FieldSpec(name: "a", generator: SineRecipe(min: 0, max: 10, period: 60), decimals: 3, faults: Self.everyFault),
                FieldSpec(name: "b", generator: CounterRecipe(), faults: Self.everyFault),
            ], style: .flat, id: id, seed: seed)
        let payloads = (0..<count).map { device.publish(elapsed: Double($0) * 0.5) }
        return (payloads, device.signals.faultCounts)
    }

    @Test func faultsAreAPureFunctionOfSeedDeviceAndIndex() {
        let first = run(id: "d-1", seed: 3)
        let again = run(id: "d-1", seed: 3)
        #expect(first.payloads == again.payloads)
        #expect(first.counts == again.counts)
        #expect(run(id: "d-2", seed: 3).payloads != first.payloads)
        #expect(run(id: "d-1", seed: 4).payloads != first.payloads)
        // Every kind fired, on two fields over 500 publishes.
        #expect(first.counts.spike > 0 && first.counts.stuck > 0 && first.counts.dropout > 0 && first.counts.drift > 0)
    }

    @Test func takeFaultCountsReturnsWhatFiredSinceTheLastTake() {
        var device = device(faults: FieldFaults(dropout: .init(probability: 1)))
        #expect(device.signals.hasFaults)
        _ = device.publish()
        _ = device.publish()
        #expect(device.signals.takeFaultCounts() == FaultCounts(dropout: 2))
        _ = device.publish()
        #expect(device.signals.takeFaultCounts() == FaultCounts(dropout: 1))
        #expect(device.signals.takeFaultCounts() == FaultCounts())
        #expect(device.signals.faultCounts == FaultCounts(dropout: 3))
        #expect(!DeviceDriver([FieldSpec(name: "x", generator: CounterRecipe())]).signals.hasFaults)
    }

    @Test func faultsInsideGroupsAreCounted() {
        var device = DeviceDriver([
            FieldSpec(
                name: "g",
                fields: [
                    FieldSpec(name: "v", generator: ConstantRecipe(value: .number(1)), faults: FieldFaults(drift: .init(perHour: 1)))
                ])
        ])
        #expect(device.signals.hasFaults)
        _ = device.publish(elapsed: 3600)
        #expect(device.signals.faultCounts == FaultCounts(drift: 1))
    }
}

@Suite struct DropoutAndAggregationTests {
    /// A dropped mean must not stretch the next publish's window over two intervals.
    @Test func aDroppedAggregateStillClosesItsWindow() throws {
        func payloads(dropout: Double) -> [String] {
            var faults = FieldFaults()
            faults.dropout = .init(probability: dropout, mode: .null)
            let spec = PayloadSpec(
                style: .flat,
                fields: [
                    FieldSpec(
                        name: "m", generator: AccelerometerRecipe(axis: .z, motion: .walking, aggregate: .mean),
                        decimals: 6, faults: faults)
                ])
            let signals = DeviceSignals(payload: spec, deviceID: "d", index: 1, seed: 3, sampleInterval: 0.02)
            return (0..<40).map { tick in
                var buffer = PayloadBuffer()
                signals.encode(elapsed: Double(tick), wallClock: 0, into: &buffer)
                return buffer.text
            }
        }
        let clean = payloads(dropout: 0)
        let holey = payloads(dropout: 0.3)
        #expect(holey.contains(#"{"m":null}"#))
        for (withHoles, without) in zip(holey, clean) where withHoles != #"{"m":null}"# {
            #expect(withHoles == without, "a publish after a dropout carries its own window's mean")
        }
    }
}
