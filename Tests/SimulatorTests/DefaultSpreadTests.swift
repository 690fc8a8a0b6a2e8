import Report
import Scenario
import Simulator
import Testing
import TestSupport

/// A fleet that says nothing about `jitter` or `rampUp` is spread as real devices are: each
/// device's phase falls at a seeded point of its publish interval, and the connections open at
/// `Defaults.rampUp` a second.
@Suite struct DefaultSpreadTests {
    private static let interval = 0.1

    private static func fleet(_ more: String..., count: Int = 1000, seed: UInt64) throws -> FleetPlan {
        let yaml = ScenarioText(
            name: "plain", group: "phone", count: count, topic: "phones/{id}", publish: "10/s", more: more, fields: "n: { counter: 0 }")
        return try plan(yaml: yaml.text, file: "plain.yaml", settings: RunSettings(seed: seed))
    }

    /// Pairs of instants that fall in the same millisecond of the publish interval.
    private static func pairsSharingAMillisecond(_ seconds: [Double]) -> Int {
        var buckets = [Int](repeating: 0, count: Int((interval * 1000).rounded()))
        for time in seconds {
            let phase = time.truncatingRemainder(dividingBy: interval)
            buckets[min(buckets.count - 1, Int(phase * 1000))] += 1
        }
        return buckets.reduce(0) { $0 + $1 * ($1 - 1) / 2 }
    }

    /// 1,000 phases dealt at random over 100 ms share one in about C(1000, 2) / 100 = 4,995
    /// pairs (standard deviation about 320). In lock-step all 499,500 pairs do.
    private static let byChance = 1000 * 999 / 2 / 100

    @Test(arguments: [1, 2, 3, 42] as [UInt64])
    func firstTicksAreSpreadOverTheIntervalAsChanceWouldSpreadThem(seed: UInt64) throws {
        let devices = try Self.fleet(seed: seed).connections.flatMap { connection in
            connection.devices.map { (connection.startOffset, $0.startDelay) }
        }
        #expect(devices.count == 1000)
        #expect(devices.allSatisfy { $0.1 >= 0 && $0.1 < Self.interval })
        // The phase after the CONNACK alone, whatever the broker's timing, and the first tick
        // on a virtual clock whose broker answers at once.
        #expect(Self.pairsSharingAMillisecond(devices.map(\.1)) < Self.byChance * 13 / 10)
        #expect(Self.pairsSharingAMillisecond(devices.map { $0.0 + $0.1 }) < Self.byChance * 13 / 10)
    }

    @Test func theSameSeedSpreadsTheSameWayAndAnotherDoesNot() throws {
        let delays = { (seed: UInt64) in try Self.fleet(seed: seed).connections.flatMap(\.devices).map(\.startDelay) }
        #expect(try delays(9) == delays(9))
        #expect(try delays(9) != delays(10))
    }

    @Test func connectionsOpenAtTheDefaultRateAcrossGroups() throws {
        let yaml = """
            name: two
            devices:
              - { name: a, count: 3, topic: "a/{id}", publish: 1/s, payload: { fields: { n: { counter: 0 } } } }
              - { name: b, count: 2, topic: "b/{id}", publish: 1/s, rampUp: 10/s, payload: { fields: { n: { counter: 0 } } } }
              - { name: c, count: 2, topic: "c/{id}", publish: 1/s, payload: { fields: { n: { counter: 0 } } } }
            """
        let plan = try plan(yaml: yaml, file: "two.yaml", settings: RunSettings(seed: 1))
        let step = 1 / Defaults.rampUp
        // a and c share the default ramp, one after another; b ramps on its own.
        #expect(plan.connections.map(\.startOffset) == [0, step, 2 * step, 0, 0.1, 3 * step, 4 * step])
    }

    @Test func jitterNoneAndRampUpMaxMakeAThunderingHerd() throws {
        let plan = try Self.fleet("jitter: none", "rampUp: max", seed: 1)
        #expect(plan.connections.allSatisfy { $0.startOffset == 0 })
        #expect(plan.connections.flatMap(\.devices).allSatisfy { $0.startDelay == 0 })
        #expect(Self.pairsSharingAMillisecond(plan.connections.flatMap(\.devices).map(\.startDelay)) == 1000 * 999 / 2)
    }

    @Test func aDeviceAloneStartsAtItsFirstConnack() throws {
        let plan = try Self.fleet(count: 1, seed: 1)
        #expect(plan.connections.map(\.startOffset) == [0])
        #expect(plan.connections[0].devices[0].startDelay == 0)
    }
}
