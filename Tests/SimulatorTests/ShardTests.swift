import Foundation
import Scenario
@testable import Report
@testable import Simulator
import Testing

/// Two groups: one connection per device with a ramp-up and jitter, and one of shared connections.
private let fleet = """
    name: plant
    devices:
      - name: sensor
        count: 300
        topic: "plant/{id}"
        publish: 2/s
        jitter: 100ms
        rampUp: 100/s
        payload: { fields: { seq: { counter: 0 }, temp: { uniform: { min: 10, max: 30 }, decimals: 2 }, ts: { timestamp: ms } } }
      - name: meter
        count: 40
        topic: "meters/{id}"
        publish: 1/s
        connection: { shared: 3 }
        payload: { fields: { kwh: { sine: { min: 1, max: 9, period: 1h }, noise: 0.2, decimals: 3 } } }
    """

private func deviceIDs(_ plan: FleetPlan) -> [String] {
    plan.connections.flatMap(\.devices).map(\.id)
}

private func settings(_ shard: Shard?) -> RunSettings {
    var settings = RunSettings(seed: 7)
    settings.shard = shard
    return settings
}

@Suite struct ShardTests {
    @Test func everyShardCountSplitsTheFleetIntoDisjointSlicesThatMakeTheWhole() throws {
        let scenario = try scenario(yaml: fleet, file: "shard.yaml")
        let whole = FleetPlan(scenarios: [scenario], settings: settings(nil))
        let all = deviceIDs(whole)
        #expect(all.count == 340)
        for count in 1...16 {
            var seen: [String: Int] = [:]
            for index in 0..<count {
                let plan = FleetPlan(scenarios: [scenario], settings: settings(Shard(index: index, count: count)))
                #expect(plan.conflicts.isEmpty)
                #expect(plan.fleetDeviceCount == 340)
                #expect(!plan.connections.contains { $0.devices.isEmpty })
                for id in deviceIDs(plan) {
                    #expect(seen[id] == nil, "device \(id) in shards \(seen[id] ?? -1) and \(index) of \(count)")
                    seen[id] = index
                }
            }
            #expect(Set(seen.keys) == Set(all), "\(count) shards")
        }
    }

    @Test func shardsAreNearEqualAndGrowingByOneMovesAboutOneInNPlusOne() {
        let ids = (1...10_000).map { "device-\($0)" }
        var previous = ids.map { Shard.bucket(of: $0, count: 1) }
        #expect(previous.allSatisfy { $0 == 0 })
        for count in 2...17 {
            let buckets = ids.map { Shard.bucket(of: $0, count: count) }
            // Near-equal: every shard within 15 % of 10,000/N (about 4 standard deviations).
            let sizes = Dictionary(grouping: buckets, by: { $0 }).mapValues(\.count)
            let expected = Double(ids.count) / Double(count)
            #expect(sizes.count == count)
            for (shard, size) in sizes {
                #expect(
                    abs(Double(size) - expected) < 0.15 * expected, "shard \(shard)/\(count) has \(size), expected about \(Int(expected))")
            }
            // Only moves into the new shard, and about 1/N of the devices.
            let moved = zip(previous, buckets).filter { $0 != $1 }
            #expect(moved.allSatisfy { $0.1 == count - 1 })
            let fraction = Double(moved.count) / Double(ids.count)
            #expect(abs(fraction - 1 / Double(count)) < 0.02, "\(count - 1) → \(count) shards moved \(fraction)")
            previous = buckets
        }
    }

    @Test func theHashIsStableAcrossProcessesAndReleases() {
        // Fixed values: a change here would move devices between the shards of a running Job.
        #expect((0..<1000).allSatisfy { Shard.jumpConsistentHash(UInt64($0), buckets: 1) == 0 })
        #expect(Shard.bucket(of: "sensor-1", count: 10) == Shard.jumpConsistentHash(fnvThenMix("sensor-1"), buckets: 10))
        // As a Python port of the same algorithm computes.
        #expect(["sensor-1", "sensor-2", "sensor-3", "meter-40"].map { Shard.bucket(of: $0, count: 10) } == [6, 3, 6, 1])
    }

    @Test func twoShardsOfADryRunPublishExactlyWhatTheWholeFleetDoes() throws {
        let scenario = try scenario(yaml: fleet, file: "shard.yaml")
        func lines(_ shard: Shard?) -> [String] {
            var lines: [String] = []
            DryRun(plan: FleetPlan(scenarios: [scenario], settings: settings(shard)), seed: 7, duration: .seconds(3), messages: nil)
                .run(wallStart: 1_700_000_000) { lines.append($0) }
            return lines
        }
        let whole = lines(nil)
        let first = lines(Shard(index: 0, count: 2)), second = lines(Shard(index: 1, count: 2))
        #expect(whole.count == 300 * 6 + 40 * 3)
        #expect(first.count + second.count == whole.count)
        #expect(Set(first).isDisjoint(with: Set(second)))
        #expect(Set(first).union(second) == Set(whole))
    }

    @Test func sharedConnectionsNameTheirShardAndPerDeviceConnectionsKeepTheirPlace() throws {
        let scenario = try scenario(yaml: fleet, file: "shard.yaml")
        let whole = FleetPlan(scenarios: [scenario], settings: settings(nil))
        let offsets = Dictionary(
            uniqueKeysWithValues: whole.connections.filter { $0.devices.count == 1 }
                .map { ($0.devices[0].id, ($0.startOffset, $0.options.clientID)) })
        var clientIDs: [String] = []
        for index in 0..<4 {
            let plan = FleetPlan(scenarios: [scenario], settings: settings(Shard(index: index, count: 4)))
            #expect(plan.shard == Shard(index: index, count: 4))
            let shared = plan.connections.filter { $0.devices.first?.group == "meter" }
            #expect(shared.count == 3)
            #expect(shared.compactMap(\.options.clientID) == (1...3).map { "plant-meter-shard\(index)of4-shared-\($0)" })
            for connection in plan.connections where connection.devices.first?.group == "sensor" {
                let device = connection.devices[0]
                #expect(offsets[device.id]?.0 == connection.startOffset)
                #expect(offsets[device.id]?.1 == connection.options.clientID)
                #expect(device.topic == "plant/\(device.id)")
            }
            clientIDs += plan.connections.compactMap(\.options.clientID)
        }
        #expect(Set(clientIDs).count == clientIDs.count)
        // One shard is the whole fleet, with the client ids it always had.
        let one = FleetPlan(scenarios: [scenario], settings: settings(Shard(index: 0, count: 1)))
        #expect(one.connections.compactMap(\.options.clientID) == whole.connections.compactMap(\.options.clientID))
    }

    @Test func moreShardsThanDevicesLeavesSomeShardsEmpty() throws {
        let scenario = try scenario(
            yaml: """
                name: tiny
                devices:
                  - name: one
                    count: 3
                    topic: "t/{id}"
                    publish: 1/s
                    payload: { fields: { seq: { counter: 0 } } }
                """, file: "shard.yaml")
        let plans = (0..<16).map { FleetPlan(scenarios: [scenario], settings: settings(Shard(index: $0, count: 16))) }
        #expect(plans.map(\.deviceCount).reduce(0, +) == 3)
        #expect(plans.contains { $0.connections.isEmpty })
        #expect(plans.allSatisfy { $0.groups == ["one"] && $0.fleetDeviceCount == 3 })
    }

    @Test func clashesOfTheWholeFleetAreFoundInEveryShard() throws {
        let scenario = try scenario(
            yaml: """
                name: clash
                devices:
                  - name: a
                    count: 20
                    topic: "t/{index}"
                    clientId: "same-{index}"
                    publish: 1/s
                    payload: { fields: { seq: { counter: 0 } } }
                  - name: b
                    count: 20
                    topic: "u/{index}"
                    clientId: "same-{index}"
                    publish: 1/s
                    payload: { fields: { seq: { counter: 0 } } }
                """, file: "shard.yaml")
        for index in 0..<5 {
            #expect(!FleetPlan(scenarios: [scenario], settings: settings(Shard(index: index, count: 5))).conflicts.isEmpty)
        }
    }

    @Test func parsingKOfN() throws {
        #expect(try Shard.parse("0/1") == Shard(index: 0, count: 1))
        #expect(try Shard.parse("9/10") == Shard(index: 9, count: 10))
        #expect(try Shard.parse(index: "3", count: "4") == Shard(index: 3, count: 4))
        #expect(Shard(index: 4, count: 4) == nil)
        #expect(Shard(index: -1, count: 4) == nil)
        #expect(Shard(index: 0, count: 0) == nil)
        for bad in ["", "1", "1/", "/2", "a/b", "1/2/3", "-1/2", "2/2", "0/0", "1/0", "0/2000000"] {
            #expect(throws: ShardError.self, "\(bad)") { try Shard.parse(bad) }
        }
        #expect(
            throws: ShardError(
                "shard index must be from 0 to 1, found '2/2' (shards count from 0, as JOB_COMPLETION_INDEX does: the last of 2 is 1/2)")
        ) {
            try Shard.parse("2/2")
        }
        #expect(Shard(index: 2, count: 5)?.description == "2/5")
    }
}

/// The stable hash the shards use, spelled out: FNV-1a of the id, through the SplitMix64 finalizer.
private func fnvThenMix(_ id: String) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in id.utf8 {
        hash ^= UInt64(byte)
        hash &*= 0x0000_0100_0000_01B3
    }
    var z = hash
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
}
