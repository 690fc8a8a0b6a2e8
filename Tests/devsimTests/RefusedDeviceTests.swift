import Foundation
import Testing
import TestSupport

/// Issue 38, items 1, 19 and 21: a device whose credentials mosquitto refuses, among many that
/// it takes, as a user with a wrong password in one row of a credentials file sees it.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct RefusedDeviceTests {
    /// Three devices, each with its row of `devices.csv`; mosquitto knows the passwords `pw-N`.
    private static func fleet(passwords: [String]) throws -> (folder: URL, file: String, csv: String) {
        let rows = passwords.enumerated().map { "meter-\($0.offset + 1),meter-\($0.offset + 1),\($0.element)\n" }.joined()
        let folder = try RunFiles.folder(with: [
            "devices.csv": "id,username,password\n" + rows,
            "s.yaml": """
            broker:
              credentials: devices.csv
            devices:
              - name: meter
                count: \(passwords.count)
                id: "meter-{index}"
                topic: "m/{id}"
                publish: 10/s
                payload: { fields: { v: { counter: 0 } } }
            """,
        ])
        return (folder, folder.appendingPathComponent("s.yaml").path, folder.appendingPathComponent("devices.csv").path)
    }

    /// What mosquitto's CONNACK says of a wrong password under MQTT 3.1.1.
    private static let refused = "connection refused: Connection Refused: not authorised. (CONNACK code 5)"

    private static func broker() throws -> MosquittoBroker {
        try MosquittoBroker(users: ["meter-1": "pw-1", "meter-2": "pw-2", "meter-3": "pw-3"], allowAnonymous: false)
    }

    /// One wrong password of three: the warning and the report name the device refused and
    /// its row, the hint points at the file rather than at --username and --password-file, and
    /// the run, whose other devices published, says that one never came up.
    @Test func oneDeviceRefusedIsNamedWithItsRow() throws {
        let broker = try Self.broker()
        let (folder, file, csv) = try Self.fleet(passwords: ["pw-1", "wrong", "pw-3"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let report = folder.appendingPathComponent("report.json").path
        let result = try DevsimRun(file, port: broker.port, ["--duration", "2s", "--report", report], timeout: 60)
        #expect(result.status == 0, "the others published: \(result.stderr)")
        let reason = Self.refused + "; check the device's row of \(csv)"
        let warnings = result.stderr.split(separator: "\n").filter { $0.contains("(first: ") }
        #expect(warnings.count == 1 && warnings[0].hasSuffix(reason + " (first: client id meter-2, \(csv):3)"), "\(result.stderr)")
        #expect(!result.stderr.contains("--password-file"), "\(result.stderr)")
        #expect(
            result.stderr.contains("1 of 3 connections never came up (\(reason)): their devices published nothing"), "\(result.stderr)")
        let json = try RunFiles.report(report)
        #expect((json["connectionErrors"] as? [String: Int])?[reason] ?? 0 >= 1, "\(json)")
        #expect((json["connectionErrorsFirst"] as? [String: String]) == [reason: "client id meter-2, \(csv):3"], "\(json)")
        #expect(json["neverConnected"] as? Int == 1 && json["connectionsUp"] as? Int == 2, "\(json)")
    }

    /// Devices refused for one reason make one line, naming the first; the run, whose every
    /// connection was refused, ends at once with exit 3 and announces no reconnection.
    @Test func everyDeviceRefusedEndsTheRunWithoutAnnouncingReconnects() throws {
        let broker = try Self.broker()
        let (folder, file, csv) = try Self.fleet(passwords: ["wrong", "wrong", "wrong"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try DevsimRun(file, port: broker.port, ["--duration", "10s"], timeout: 60)
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").filter { $0.contains("warning") && $0.contains("connection refused") }.count == 1)
        #expect(result.stderr.contains("(first: client id meter-"), "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "every connection was refused: " + Self.refused + "; check the device's row of \(csv)"),
            "\(result.stderr)")
        #expect(!result.stderr.contains("reconnecting in"), "\(result.stderr)")
    }
}
