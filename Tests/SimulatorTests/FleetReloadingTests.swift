import Foundation
import Report
import Simulator
import Testing
import TestSupport

/// Issue 26, item 3: SIGHUP's reload as the library carries it out, in-process: the files read
/// again, every check of a run's start, and the reason in the report when the fleet runs on as
/// it was. The fleet is made but never started: each refusal comes before it would change.
@Suite struct FleetReloadingTests {
    private static let meter = ScenarioText(group: "meter", topic: "rl/{index}", publish: "1/s").text

    /// A fleet of `meter`, never started, and a folder for the files a reload reads.
    private func withFleet(_ body: (FleetHarness, _ folder: String) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("devsim-reload-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Nothing connects: any port.
        try body(try FleetHarness(Self.meter, port: 1883, settings: RunSettings(statsInterval: nil)), folder)
    }

    private func write(_ text: String, _ path: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    @Test func filesThatDoNotLoadAreLoggedAndLeaveTheFleet() throws {
        try withFleet { harness, folder in
            try write(Self.meter.replacingOccurrences(of: "publish: 1/s", with: "publish: often"), folder + "/bad.yaml")
            let reload = harness.fleet.reload([folder + "/bad.yaml"], environment: [:])
            #expect(reload.error == "the scenario files have 1 error", "\(reload)")
            let log = harness.log.all.joined(separator: "\n")
            #expect(log.contains("reloading \(folder)/bad.yaml"), "\(log)")
            #expect(log.contains("\(folder)/bad.yaml:4:14: expected a rate such as 10/s"), "each error logged with its place: \(log)")
            #expect(log.contains("reload: the scenario files have 1 error; the fleet runs on as it was"), "\(log)")
        }
    }

    @Test func idsThatClashAreRefused() throws {
        try withFleet { harness, folder in
            try write(Self.meter, folder + "/a.yaml")
            try write(Self.meter, folder + "/b.yaml")
            let reload = harness.fleet.reload([folder + "/a.yaml", folder + "/b.yaml"], environment: [:])
            // The group's name, its devices' ids and their client ids.
            #expect(reload.error == "the scenario files have 3 clashes of ids", "\(reload)")
            #expect(harness.log.all.contains { $0.contains("device group name 'meter' is also used at") }, "\(harness.log.all)")
        }
    }

    @Test func tlsFilesThatAreMissingAreRefused() throws {
        try withFleet { harness, folder in
            try write("broker:\n  tls:\n    ca: \(folder)/none.pem\n" + Self.meter, folder + "/tls.yaml")
            let reload = harness.fleet.reload([folder + "/tls.yaml"], environment: [:])
            #expect(reload.error == "the scenarios' TLS files have 1 problem", "\(reload)")
            #expect(
                harness.log.all.contains { $0.contains("\(folder)/tls.yaml:3:9: broker.tls.ca: '\(folder)/none.pem' does not exist") },
                "\(harness.log.all)")
        }
    }

    /// Loaded from any source: a password without a user name, and a load profile that would
    /// change under the running fleet.
    @Test func theStartsChecksHoldForAReload() throws {
        try withFleet { harness, _ in
            let withPassword = try scenario(yaml: "broker: { host: mq.example, password: secret }\n" + Self.meter)
            let password = harness.fleet.reload { _ in [withPassword] }
            // The host the run was given (the fleet's settings), over the scenario's.
            #expect(password.error?.hasPrefix("a password but no user name for 127.0.0.1:1883: ") == true, "\(password)")
            let withStages = try scenario(yaml: "stages: [{ duration: 10s, multiplier: 2 }]\n" + Self.meter)
            let staged = harness.fleet.reload { _ in [withStages] }
            #expect(staged.error?.hasPrefix("the stages changed: ") == true, "\(staged)")
            // Every check passed: the fleet itself says it has not started.
            let same = try scenario(yaml: Self.meter)
            let unchanged = harness.fleet.reload { _ in [same] }
            #expect(unchanged.error == "the run has not started yet", "\(unchanged)")
            let failing = harness.fleet.reload { errors in
                errors("one.yaml:1:1: first\n")
                errors("one.yaml:2:1: second\n")
                return nil
            }
            #expect(failing.error == "the scenario files have 2 errors")
            #expect(harness.log.all.contains { $0.contains("one.yaml:2:1: second") }, "\(harness.log.all)")
        }
    }

    /// The files read again reach the running fleet: a new group starts, and the report lists
    /// the reload.
    @Test(.tags(.integration), .notUnitOnly) func aRunningFleetTakesTheFilesReadAgain() throws {
        let broker = try MosquittoBroker()
        let harness = try FleetHarness(Self.meter, port: broker.port, settings: RunSettings(statsInterval: nil))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("devsim-reload-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try write(
            Self.meter + "\n  - name: room\n    topic: \"rl/room\"\n    publish: 1/s\n    payload: { fields: { t: { counter: 0 } } }\n",
            folder + "/more.yaml")
        harness.start()
        #expect(TestClock.wait(timeout: 10, interval: 0.02) { harness.fleet.totals.connectionsUp == 1 })
        let reload = harness.fleet.reload(
            [folder + "/more.yaml"], environment: [:], overridden: ["broker.host", "broker.port"])
        #expect(reload.error == nil && reload.added == ["room"] && reload.removed.isEmpty, "\(reload)")
        #expect(TestClock.wait(timeout: 10, interval: 0.02) { harness.fleet.totals.connectionsUp == 2 })
        harness.fleet.requestStop()
        let result = try #require(try harness.result(timeout: 10))
        #expect(result.reloads == [reload])
    }
}
