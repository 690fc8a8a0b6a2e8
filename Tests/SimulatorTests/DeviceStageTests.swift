import Foundation
import Scenario
import Testing

@testable import Report
@testable import Simulator

/// `devices` stages on a virtual clock: who is in when, and the ticks of each stage, which are
/// the integral of the rate over the time each device is in, to the tick.
@Suite struct DeviceStageTests {
    /// 10 devices: up from none to 10 over 10 s, 10 for 10 s, down to 4 over 6 s, back up to
    /// 10 over 6 s, then held for 8 s.
    private static let stages = [
        Stage(duration: 10, target: .devices(10)), Stage(duration: 10, target: .multiplier(1)),
        Stage(duration: 6, target: .devices(4)), Stage(duration: 6, target: .devices(10)),
        Stage(duration: 8, target: .multiplier(1)),
    ]
    private static let ends: [Double] = [10, 20, 26, 32, 40]

    /// When the device of rank `k` is in, worked out by hand: it joins when the count passes k
    /// (at k s), and ranks 5 to 9 leave on the way down to 4 (the count is 10 − t' there: k or
    /// less from t' = 10 − k) and join again on the way up (4 + t' > k from t' = k − 4). Rank 4
    /// leaves as the count comes down to 4 and joins as it goes up again: it stays.
    private static func stretches(rank k: Int) -> [(on: Double, off: Double)] {
        k <= 4 ? [(Double(k), .infinity)] : [(Double(k), Double(30 - k)), (Double(22 + k), .infinity)]
    }

    /// Seconds in between `from` and `t`.
    private static func timeIn(rank k: Int, from: Double, to t: Double) -> Double {
        stretches(rank: k).reduce(0) { $0 + max(0, min(t, $1.off) - max(from, $1.on)) }
    }

    @Test func eachDeviceIsInWhileTheCountReachesIt() {
        for rank in 0..<10 {
            let presence = Presence(stages: Self.stages, count: 10, share: 1, rank: rank)
            let expected = Self.stretches(rank: rank)
            #expect(presence.stretches.count == expected.count, "rank \(rank)")
            for (got, want) in zip(presence.stretches, expected) {
                #expect(abs(got.on - want.on) < 1e-9 && (got.off == want.off || abs(got.off - want.off) < 1e-9), "rank \(rank)")
            }
        }
        let last = Presence(stages: Self.stages, count: 10, share: 1, rank: 9)
        #expect(!last.isIn(at: 8.9) && last.isIn(at: 9.1) && last.isIn(at: 20.9) && !last.isIn(at: 21.5) && last.isIn(at: 31.1))
        #expect(last.nextChange(after: 0)! == (9, true) && last.nextChange(after: 9.5)! == (21, false))
        #expect(last.nextChange(after: 21)! == (31, true) && last.nextChange(after: 31) == nil)
        // Without a first stage of devices, every device is in from the start.
        let rateFirst = [Stage(duration: 5, target: .multiplier(2)), Stage(duration: 5, target: .devices(5))]
        #expect(Presence(stages: rateFirst, count: 10, share: 1, rank: 7).stretches == [.init(on: 0, off: 8)])
    }

    @Test func theTicksOfEachStageAreTheIntegralOfTheTimeIn() throws {
        var total = [Int](repeating: 0, count: Self.ends.count)
        var expected = total
        for rank in 0..<10 {
            let presence = Presence(stages: Self.stages, count: 10, share: 1, rank: rank)
            let profile = try #require(RateProfile(stages: Self.stages, baseRate: 10, presence: presence))
            // As at a CONNACK just after it joins, and its jitter: ticks fall between the
            // stretches' ends, on whole seconds.
            let start = Self.stretches(rank: rank)[0].on + 0.05
            var schedule = Schedule(start: UInt64((start * 1e9).rounded()), perSecond: 10, profile: profile, runStart: 0)
            while true {
                let seconds = Double(schedule.deadline) / 1e9
                guard let stage = Self.ends.firstIndex(where: { seconds < $0 }) else { break }
                #expect(presence.isIn(at: seconds), "rank \(rank) ticks at \(seconds) s, while out")
                total[stage] += 1
                schedule.advance()
            }
            var previous = 0.0
            for (stage, end) in Self.ends.enumerated() {
                let upTo = 10 * Self.timeIn(rank: rank, from: start, to: end)
                expected[stage] += Int(upTo.rounded(.up)) - Int(previous.rounded(.up))
                previous = upTo
            }
        }
        #expect(total == expected)
        // The integral by hand: Σ over the stage of the devices in, at 10/s.
        #expect(abs(total[1] - 1000) <= 10 && abs(total[2] - 10 * (6 * 10 - 15)) <= 10)
        #expect(total.reduce(0, +) == expected.reduce(0, +) && total[0] > 0)
    }

    @Test func theScenariosDevicesAreTheFleetsSharedByCount() throws {
        let yaml = """
            name: shared
            stages: [{ duration: 10s, devices: 40 }]
            devices:
              - { name: a, count: 30, topic: "a/{id}", publish: 1/s, payload: { fields: { n: { counter: 0 } } } }
              - { name: b, count: 10, topic: "b/{id}", publish: 1/s, payload: { fields: { n: { counter: 0 } } } }
            """
        let scenario = try scenario(yaml: yaml, file: "shared.yaml")
        let plan = FleetPlan(scenarios: [scenario], settings: RunSettings(seed: 1))
        for connection in plan.connections {
            let device = connection.devices[0]
            let count = device.group == "a" ? 30.0 : 10.0
            // A quarter of the fleet's 40 is group b's: its devices come in 3 times as far apart.
            let joins = 10 * Double(device.index - 1) / count
            #expect(abs(connection.startOffset - joins) < 1e-9, "\(device.id) opens when it joins")
            #expect(connection.presence?.stretches.first.map { abs($0.on - joins) < 1e-9 } == true)
        }
    }

    @Test func aGroupsOwnStagesCountItsDevices() throws {
        let yaml = """
            name: own
            stages: [{ duration: 10s, multiplier: 2 }]
            defaults: { publish: 1/s, payload: { fields: { n: { counter: 0 } } } }
            devices:
              - { name: a, count: 4, topic: "a/{id}", stages: [{ duration: 4s, devices: 4 }, { duration: 2s, devices: 2 }] }
              - { name: b, count: 2, topic: "b/{id}" }
            """
        let scenario = try scenario(yaml: yaml, file: "own.yaml")
        #expect(scenario.groups[0].stages.map(\.targetText) == ["4 devices", "2 devices"])
        let plan = FleetPlan(scenarios: [scenario], settings: RunSettings(seed: 1))
        let a = plan.connections.filter { $0.devices[0].group == "a" }
        #expect(a.map(\.startOffset) == [0, 1, 2, 3])
        #expect(a.map { $0.presence?.stretches.last?.off } == [.infinity, .infinity, 6, 5])
        // Group b follows the scenario's rate stages, all in from the start.
        let b = plan.connections.filter { $0.devices[0].group == "b" }
        #expect(b.allSatisfy { $0.presence == nil && $0.devices[0].profile?.multiplier(at: 10) == 2 })
    }

    @Test(arguments: [
        (
            "count: 5, stages: [{ duration: 5s, devices: 2 }]",
            "device group 'd' has 5 devices and the stages never have more than 2 in: the rest would never connect; make 'count' 2"
        ),
        ("count: 1, stages: [{ duration: 5s, devices: 3 }]", "stage 1 has 3 devices in, and device group 'd' has 1: raise 'count' to 3"),
        (
            "lifecycle: { online: 1m, offline: 5s }, stages: [{ duration: 5s, devices: 1 }]",
            "device group 'd' has a 'lifecycle' and follows 'devices' stages"
        ),
        (
            "stages: [{ duration: 5s, devices: 1 }, { duration: 5s, disconnect: all }]",
            "a device group's stage cannot 'disconnect: all': a reconnect storm drops the whole fleet"
        ),
        ("publish: max, stages: [{ duration: 5s, devices: 1 }]", "device group 'd' publishes at max: it has no rate to ramp"),
    ])
    func aGroupsBadStagesAreRefusedWhereTheyAreWritten(keys: String, message: String) {
        let publish = keys.hasPrefix("publish") ? "" : "publish: 1/s, "
        let yaml = "name: bad\ndevices:\n  - { name: d, topic: t, \(publish)\(keys), payload: { fields: { n: { counter: 0 } } } }\n"
        #expect {
            try scenario(yaml: yaml, file: "bad.yaml")
        } throws: { error in
            "\(error)".contains("bad.yaml:3:") && "\(error)".contains(message)
        }
    }

    @Test func aReloadKeepsTheProfilesAndTheCountsTheyShare() throws {
        let group = { (count: Int, stages: String) in
            "devices:\n  - { name: a, count: \(count), topic: t, publish: 1/s, \(stages)payload: { fields: { n: { counter: 0 } } } }\n"
        }
        let plan = { (text: String) in try SimulatorTests.plan(yaml: text, file: "r.yaml", settings: RunSettings(seed: 1)) }
        let own = try plan(group(4, "stages: [{ duration: 4s, devices: 4 }], "))
        #expect(own.profileChange(to: try plan(group(4, "stages: [{ duration: 4s, devices: 4 }], "))) == nil)
        #expect(
            own.profileChange(to: try plan(group(3, "stages: [{ duration: 4s, devices: 3 }], ")))?.contains("its stages changed") == true)
        let rated = try plan(group(4, "stages: [{ duration: 4s, rate: 2/s }], "))
        #expect(rated.profileChange(to: try plan(group(5, "stages: [{ duration: 4s, rate: 2/s }], "))) == nil)
        let shared = try plan("stages: [{ duration: 4s, devices: 4 }]\n" + group(4, ""))
        #expect(
            shared.profileChange(to: try plan("stages: [{ duration: 4s, devices: 4 }]\n" + group(4, "id: \"b-{index}\", ")))
                == nil)
        let regrouped = try plan(
            "stages: [{ duration: 4s, devices: 4 }]\n" + group(4, "").replacingOccurrences(of: "name: a", with: "name: b"))
        #expect(shared.profileChange(to: regrouped)?.contains("a reload cannot change those groups or their counts") == true)
    }

    @Test func anotherFilesGroupsAreCheckedAgainstTheStagesTheyFollow() throws {
        let staged = try scenario(
            yaml: "name: one\nstages: [{ duration: 4s, devices: 4 }]\ndevices:\n"
                + "  - { name: a, count: 4, topic: a, publish: 1/s, payload: { fields: { n: { counter: 0 } } } }\n", file: "one.yaml")
        let other = try scenario(
            yaml: "name: two\ndevices:\n  - { name: b, count: 2, topic: b, publish: 1/s, lifecycle: { online: 1m, offline: 1s }, "
                + "payload: { fields: { n: { counter: 0 } } } }\n", file: "two.yaml")
        let messages = FleetPlan(scenarios: [staged, other], settings: RunSettings(seed: 1)).conflicts.map(\.description)
        #expect(
            messages.contains {
                $0.hasPrefix("two.yaml:3:") && $0.contains("has a 'lifecycle' and follows the 'devices' stages of one.yaml")
            })
        #expect(messages.contains { $0.hasPrefix("one.yaml:2:") && $0.contains("count the run's fleet of 6 devices") }, "\(messages)")
        #expect(FleetPlan(scenarios: [staged], settings: RunSettings(seed: 1)).conflicts.isEmpty)
    }
}
