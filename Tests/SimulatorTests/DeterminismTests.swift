import Foundation
import Report
import Scenario
import Simulator
import Testing
import TestSupport

/// With one seed, what a real broker receives from each device is the same byte for byte
/// whatever the timing, the number of event loops, and the run: values depend on the seed, the
/// device's id and the tick number alone.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct DeterminismTests {
    static let yaml = """
        name: determinism
        defaults:
          publish: 25/s
          sample: 50Hz
          qos: 1
          payload:
            fields:
              seq: { counter: 0 }
              wave: { sine: { min: -1, max: 1, period: 3s }, noise: 0.05, decimals: 5 }
              level: { uniform: { min: 0, max: 100 }, decimals: 3 }
              ax: { accelerometer: x, decimals: 5 }
              az: { accelerometer: z, decimals: 5 }
        devices:
          - name: phone
            count: 3
            topic: "det/{id}"
            jitter: auto
          - name: tablet
            count: 2
            topic: "det/{id}"
        """

    /// The payloads each device's topic received, in order, from one run of the scenario.
    private func run(seed: UInt64, loops: Int, broker: MosquittoBroker) throws -> [String: [String]] {
        let subscriber = try Subscriber(broker: broker, topic: "det/#", qos: 1)
        let result = try #require(
            try FleetHarness.run(
                Self.yaml, port: broker.port,
                settings: RunSettings(duration: .seconds(1.5), seed: seed, loops: loops, statsInterval: nil)))
        #expect(result.totals[.published] == result.totals[.scheduled])
        #expect(subscriber.waitFor(count: Int(result.totals[.published]), timeout: 5))
        subscriber.stop()
        var byDevice: [String: [String]] = [:]
        for message in subscriber.messages { byDevice[message.topic, default: []].append(message.payloadText) }
        return byDevice
    }

    /// The shorter of two sequences must be a prefix of the longer: runs may end a tick apart.
    private func expectSamePrefix(_ a: [String: [String]], _ b: [String: [String]], _ comment: Comment) {
        #expect(Set(a.keys) == Set(b.keys), comment)
        for (topic, first) in a {
            let second = b[topic] ?? []
            let length = min(first.count, second.count)
            #expect(length >= 20, "\(topic): \(length) messages only; \(comment)")
            #expect(Array(first.prefix(length)) == Array(second.prefix(length)), "\(topic); \(comment)")
        }
    }

    @Test func oneSeedGivesTheSamePayloadsAcrossRunsAndLoopCounts() throws {
        let broker = try MosquittoBroker()
        let first = try run(seed: 1234, loops: 1, broker: broker)
        let second = try run(seed: 1234, loops: 1, broker: broker)
        let twoLoops = try run(seed: 1234, loops: 2, broker: broker)
        #expect(first.count == 5)
        expectSamePrefix(first, second, "two runs, one event loop")
        expectSamePrefix(first, twoLoops, "one event loop and two")

        // Different devices (different ids) get different sequences, apart from the counter.
        let sequences = first.values.map { payloads in payloads.prefix(20).map { $0.replacing(#/"seq":\d+,/#, with: "") } }
        #expect(Set(sequences).count == sequences.count)

        // And every device's payloads are those `devsim sample` and the dry run show.
        let scenario = try scenario(yaml: Self.yaml)
        let plan = FleetPlan(scenarios: [scenario], settings: RunSettings(seed: 1234))
        for device in plan.connections.flatMap(\.devices) {
            let expected = Sample.ticks(of: device, in: plan, seed: 1234, count: 20).map(\.payload)
            #expect(Array((first[device.topic] ?? []).prefix(20)) == expected, "\(device.id)")
        }
    }

    @Test func anotherSeedGivesOtherPayloads() throws {
        let broker = try MosquittoBroker()
        let one = try run(seed: 1, loops: 1, broker: broker)
        let other = try run(seed: 2, loops: 1, broker: broker)
        for (topic, payloads) in one {
            #expect(Array(payloads.prefix(10)) != Array((other[topic] ?? []).prefix(10)), "\(topic)")
        }
    }
}
