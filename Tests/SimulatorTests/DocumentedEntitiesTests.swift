import Foundation
import Scenario
import Testing

@testable import Report
@testable import Simulator

/// Issue 25, item 9: the README and `docs/dashboards.md` said four devices and eight entities,
/// and seven and fifteen, where Home Assistant listed 7 and 14. The numbers the docs give for the
/// shipped Home Assistant scenario are those of the discovery configs the product makes of it.
@Suite struct DocumentedEntitiesTests {
    static let numbers = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen",
        "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
    ]

    /// The devices and entities `scenarios/home-assistant.yaml` announces: its discovered devices,
    /// and one retained config per entity.
    static func announced() throws -> (devices: Int, entities: Int) {
        let file = GoldenPayloadTests.repository.appendingPathComponent("scenarios/home-assistant.yaml").path
        let plan = FleetPlan(scenarios: [try ScenarioLoader.load(file: file, environment: [:])], settings: RunSettings(seed: 1))
        let discoveries = plan.connections.flatMap(\.devices).compactMap(\.discovery)
        return (discoveries.count, discoveries.reduce(0) { $0 + $1.configs.count })
    }

    @Test(arguments: ["README.md", "docs/dashboards.md"])
    func theDocsCountWhatTheScenarioAnnounces(file: String) throws {
        let text = try String(contentsOf: GoldenPayloadTests.repository.appendingPathComponent(file), encoding: .utf8)
            .replacingOccurrences(of: "\n", with: " ")
        let sentence = try #require(
            text.firstMatch(of: /announces (\w+) devices and (\w+) entities/), "\(file) says how many devices and entities")
        let (devices, entities) = try Self.announced()
        #expect(Self.numbers.firstIndex(of: String(sentence.output.1)).map { $0 + 1 } == devices, "\(file): \(devices) devices")
        #expect(Self.numbers.firstIndex(of: String(sentence.output.2)).map { $0 + 1 } == entities, "\(file): \(entities) entities")
    }
}
