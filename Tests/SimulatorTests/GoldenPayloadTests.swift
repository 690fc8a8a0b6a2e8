import Foundation
import Report
import Scenario
import Simulator
import Testing

/// Reproducibility, locked down: for seed 42 and a fixed wall clock, the first messages of every
/// shipped scenario (its topics, payloads, QoS and retain flags) are byte for byte those of the
/// fixtures in `Golden/`. A change to a generator, a seed's derivation, the encoder or a shipped
/// scenario that moves a single byte fails here; when the change is meant, run the tests with
/// `DEVSIM_UPDATE_GOLDEN=1` to write the fixtures anew, and say why in the commit.
@Suite struct GoldenPayloadTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    static let scenarios: [String] = {
        let folder = repository.appendingPathComponent("scenarios")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.sorted()
    }()

    @Test func everyShippedScenarioHasAFixture() {
        #expect(Self.scenarios.count >= 7)
    }

    @Test(arguments: scenarios)
    func theFirstMessagesAreByteForByteTheFixtures(scenario name: String) throws {
        let file = Self.repository.appendingPathComponent("scenarios").appendingPathComponent(name).path
        let scenario = try ScenarioLoader.load(file: file, environment: [:])
        let plan = FleetPlan(scenarios: [scenario], settings: RunSettings(seed: 42))
        var lines = ""
        DryRun(plan: plan, seed: 42, duration: nil, messages: 40).run(wallStart: 1_800_000_000) { lines += $0 }
        let fixture = Self.fixtures.appendingPathComponent(name.replacingOccurrences(of: ".yaml", with: ".jsonl"))
        if ProcessInfo.processInfo.environment["DEVSIM_UPDATE_GOLDEN"] == "1" {
            try lines.write(to: fixture, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: fixture, encoding: .utf8)
        let got = lines.split(separator: "\n", omittingEmptySubsequences: false)
        for (number, line) in expected.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where number < got.count {
            #expect(got[number] == line, "\(name), message \(number + 1)")
            if got[number] != line { break }
        }
        #expect(got.count == expected.split(separator: "\n", omittingEmptySubsequences: false).count, "\(name): as many messages")
    }
}
