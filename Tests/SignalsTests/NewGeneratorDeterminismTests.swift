import Testing
import Signals

/// Every new generator is a pure function of the run's seed, the device id and the index: the
/// same device replays exactly, another device gets another sequence.
@Suite struct NewGeneratorDeterminismTests {
    static let seeded: [(String, TestParameters)] = [
        ("gaussian", TestParameters(["mean": .number(5), "stddev": .number(2)])),
        ("randomWalk", TestParameters(["step": .number(1), "min": .number(-3), "max": .number(3), "meanReversion": .number(0.1)])),
        ("choice", TestParameters(["values": .list(["a", "b", "c", "d"])])),
        ("bool", TestParameters()),
        ("uuid", TestParameters()),
        ("location", TestParameters(shorthand: "latitude")),
        ("sine", TestParameters(["min": .number(0), "max": .number(1), "period": .duration(10), "phase": .string("random")])),
    ]

    @Test(arguments: 0..<seeded.count)
    func sameSeedAndIDReplayDifferentIDDiffers(_ which: Int) throws {
        let (key, parameters) = Self.seeded[which]
        let generator = try recipe(key, parameters)
        let once = GeneratorHarness(generator, id: "sensor-7", seed: 99).values(300)
        let again = GeneratorHarness(generator, id: "sensor-7", seed: 99).values(300)
        #expect(once == again, "\(key) replays")
        #expect(GeneratorHarness(generator, id: "sensor-8", seed: 99).values(300) != once, "\(key) differs per device")
        #expect(GeneratorHarness(generator, id: "sensor-7", seed: 100).values(300) != once, "\(key) differs per seed")
    }

    @Test func aHistoryModelGivesTheSameValuesThroughDeviceSignals() throws {
        // Through the real device: the walk and the track replay byte for byte.
        let fields = try [
            FieldSpec(name: "walk", generator: recipe("randomWalk", TestParameters(["step": .number(0.3)])), decimals: 6),
            FieldSpec(name: "lat", generator: recipe("location", TestParameters(shorthand: "latitude")), decimals: 7),
            FieldSpec(name: "lon", generator: recipe("location", TestParameters(shorthand: "longitude")), decimals: 7),
            FieldSpec(name: "id", generator: recipe("uuid", TestParameters())),
        ]
        func run(_ id: String) -> [String] {
            var device = DeviceDriver(fields, style: .flat, id: id, sampleInterval: 0.1)
            return (0..<50).map { device.publish(elapsed: Double($0), wallClock: 1_700_000_000 + Double($0)) }
        }
        #expect(run("a") == run("a"))
        #expect(run("a") != run("b"))
    }
}
