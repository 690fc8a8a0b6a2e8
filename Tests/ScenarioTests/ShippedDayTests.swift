import Foundation
import Scenario
import Signals
import Testing

/// Issue 25, item 7, as the shipped scenarios take it: over three virtual days from midnight UTC
/// (seed 1), the home's door and motion, and the building's entrance, are quiet at night and busy
/// by day.
@Suite struct ShippedDayTests {
    static let root = DeploymentFilesTests.root
    static let midnight = 1_699_833_600.0

    /// Group `group`'s first device's payload every `interval` seconds over `days`, read from
    /// midnight, with the hour of the day each was made in.
    static func payloads(_ scenario: String, group: String, interval: Double, days: Int = 3) throws -> [(hour: Int, text: String)] {
        let loaded = try ScenarioLoader.load(file: root.appendingPathComponent("scenarios/" + scenario).path, environment: [:])
        let spec = try #require(loaded.groups.first { $0.name == group }).payload
        let signals = DeviceSignals(payload: spec, deviceID: group + "-1", index: 1, seed: 1, sampleInterval: interval)
        var buffer = PayloadBuffer()
        let steps = Int(Double(days) * 86_400 / interval)
        return (0..<steps).map { step in
            let elapsed = Double(step) * interval
            buffer.removeAll()
            signals.encode(elapsed: elapsed, wallClock: midnight + elapsed, into: &buffer)
            return (Int(elapsed / 3600) % 24, buffer.text)
        }
    }

    /// How often `field` turned true in each hour of the day, over the payloads.
    static func risings(_ payloads: [(hour: Int, text: String)], field: String) -> [Int] {
        var perHour = [Int](repeating: 0, count: 24)
        let on = "\"\(field)\":true"
        for (before, now) in zip(payloads, payloads.dropFirst()) where now.text.contains(on) && !before.text.contains(on) {
            perHour[now.hour] += 1
        }
        return perHour
    }

    @Test(arguments: [("door", "contact"), ("motion", "motion")])
    func theHomeIsQuietAtNight(group: String, field: String) throws {
        let perHour = Self.risings(try Self.payloads("home-assistant.yaml", group: group, interval: 5), field: field)
        let night: Int = perHour[2..<5].reduce(0, +)
        let afternoon: Int = perHour[13..<16].reduce(0, +)
        // Three days of 02:00-05:00, nine hours: under one event an hour.
        #expect(night < 9, "\(group) at 02:00-05:00 over three days: \(night)")
        #expect(night * 5 < afternoon, "\(group): \(night) at night, \(afternoon) in the afternoon")
    }

    @Test func theBuildingsEntranceIsQuietAtNight() throws {
        let payloads = try Self.payloads("smart-building.yaml", group: "entrance", interval: 5)
        var people = [Int](repeating: 0, count: 24)
        let count = { (text: String) in Int(text.split(separator: "\"people\":").last?.prefix { $0.isNumber } ?? "") ?? 0 }
        for (before, now) in zip(payloads, payloads.dropFirst()) { people[now.hour] += count(now.text) - count(before.text) }
        let opened = Self.risings(payloads, field: "open")
        let peopleAtNight: Int = people[2..<5].reduce(0, +), peopleByDay: Int = people[13..<16].reduce(0, +)
        let openedAtNight: Int = opened[2..<5].reduce(0, +), openedByDay: Int = opened[13..<16].reduce(0, +)
        #expect(peopleAtNight * 10 < peopleByDay, "people by hour: \(people)")
        #expect(openedAtNight * 5 < openedByDay, "openings by hour: \(opened)")
    }
}
