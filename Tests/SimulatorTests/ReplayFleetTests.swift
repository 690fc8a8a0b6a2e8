import Foundation
import Report
import Scenario
import Simulator
import Testing
import TestSupport

/// Issue 30, item 2: what a running fleet of replaying devices takes and refuses.
@Suite(.tags(.integration)) struct ReplayFleetTests {
    /// A looping group of two copies replaying `rec.jsonl` in `folder`.
    static func yaml(_ folder: URL) -> String {
        """
        devices:
          - name: room
            count: 2
            recording: { file: \(folder.appendingPathComponent("rec.jsonl").path), recordedID: s1, loop: true }
        """
    }

    static let recording = "{\"t\":0,\"topic\":\"rf/s1\",\"payload\":\"1\"}\n{\"t\":0.05,\"topic\":\"rf/s1\",\"payload\":\"2\"}\n"

    @Test func aRateCommandIsRefusedAndAPauseTaken() throws {
        let broker = try MosquittoBroker()
        let folder = try RunFiles.folder(with: ["rec.jsonl": Self.recording])
        defer { try? FileManager.default.removeItem(at: folder) }
        let harness = try FleetHarness(Self.yaml(folder), port: broker.port, settings: RunSettings(statsInterval: nil))
        harness.start()
        #expect(TestClock.wait(timeout: 10, interval: 0.02) { harness.fleet.totals.figures[.published] >= 10 })
        #expect(
            throws: GroupCommandError("device group 'room' replays a recording: it has no rate to change (its speed is the scenario's)")
        ) {
            try harness.fleet.perform(.rate(perSecond: 5), group: "room")
        }
        #expect(try harness.fleet.perform(.pause, group: "room") == 2)
        #expect(try harness.fleet.perform(.resume, group: "room") == 2)
        harness.fleet.requestStop()
        let result = try #require(try harness.result(timeout: 10))
        #expect(result.totals.accountsForEveryTick && result.totals.figures[.published] >= 10, "\(result.totals)")
    }

    @Test func aCapacitySearchIsRefused() throws {
        let folder = try RunFiles.folder(with: ["rec.jsonl": Self.recording])
        defer { try? FileManager.default.removeItem(at: folder) }
        let plan = try plan(yaml: Self.yaml(folder))
        #expect(
            throws: RunCheckError(
                "--find-capacity: device group 'room' replays a recording, which has no rate to step up (its pace is the recording's)")
        ) {
            _ = try CapacityRequest(find: true, slos: [try Assertion("p99<50ms")]).settings(
                for: plan, dryRun: false, messages: nil, verify: false)
        }
        var settings = RunSettings()
        settings.verify = true
        #expect(throws: RunCheckError.self) { try RunChecks().check(plan, settings: settings) }
    }
}
