import Foundation
import Testing
import TestSupport

/// The README's rehearsal of AWS IoT Core, as a user would run it: its own commands (certificates
/// from `scripts/make-device-certs.sh`, a mosquitto configured as it says, which takes each
/// certificate's name as its user and lets each thing write only its own topics, and the shipped
/// `scenarios/aws-iot-core.yaml`), but for the port (a free one for 8883), the run's length and
/// its report. Issue 38, item 14: as root too, when mosquitto would drop to its own user.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct AWSRehearsalTests {
    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The README's block, cut where it starts the broker: the commands before, and the run after.
    private static func rehearsal() throws -> (setup: String, run: String) {
        let readme = try String(contentsOf: repository.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.firstRange(of: "**Rehearsing AWS IoT Core on this machine.**").map { readme[$0.upperBound...] })
        let block = try #require(section.firstRange(of: "```sh\n").map { section[$0.upperBound...] })
        let text = String(try #require(block.firstRange(of: "```\n").map { block[..<$0.lowerBound] }))
        let start = try #require(text.firstRange(of: "mosquitto -c aws.conf &\n"), "the README starts mosquitto: \(text)")
        return (String(text[..<start.lowerBound]), String(text[start.upperBound...]))
    }

    /// `certificate`: each thing's own (`{id}`), or one for the fleet, which the ACL refuses
    /// the other things' topics.
    private func rehearse(certificate: String?) throws -> (status: Int32?, report: [String: Any], stderr: String) {
        let folder = try RunFiles.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The README's paths are the repository's.
        for name in ["scripts", "scenarios"] {
            try FileManager.default.createSymbolicLink(
                at: folder.appendingPathComponent(name), withDestinationURL: Self.repository.appendingPathComponent(name))
        }
        let port = try Loopback.freePort()
        let (setup, run) = try Self.rehearsal()
        let made = try DevsimProcess.runToCompletion(
            executable: "/bin/bash",
            args: ["-euo", "pipefail", "-c", "cd '\(folder.path)'\n" + setup.replacingOccurrences(of: " 8883 ", with: " \(port) ")],
            timeout: 60)
        try #require(made.status == 0, "\(made.stdout)\(made.stderr)")

        // `mosquitto -c aws.conf &`, waited for: it says "running" once it listens.
        let log = folder.appendingPathComponent("mosquitto.log").path
        let broker = try ChildProcess(
            executable: "/usr/sbin/mosquitto", arguments: ["-c", folder.appendingPathComponent("aws.conf").path], stdout: .file(log),
            stderr: .file(log))
        defer { _ = broker.terminate(grace: 2) }
        let brokerLog = { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        try #require(TestClock.wait(timeout: 10, interval: 0.02) { !broker.isRunning || brokerLog().contains(" running") })
        try #require(broker.isRunning, "mosquitto as the README configures it: \(brokerLog())")

        var command = run.replacingOccurrences(of: "devsim run", with: "'\(try DevsimProcess.locateDevsim())' run")
            .replacingOccurrences(of: "--duration 1m", with: "--duration 6s").trimmingCharacters(in: .whitespacesAndNewlines)
        command += " --port \(port) --report report.json"
        if let certificate {
            // The shipped scenario with one certificate for every thing.
            let shipped = Self.repository.appendingPathComponent("scenarios/aws-iot-core.yaml").path
            let text = try String(contentsOfFile: shipped, encoding: .utf8).replacingOccurrences(of: "/{id}.", with: "/\(certificate).")
            try text.write(to: folder.appendingPathComponent("aws-one-certificate.yaml"), atomically: true, encoding: .utf8)
            command = command.replacingOccurrences(of: "scenarios/aws-iot-core.yaml", with: "aws-one-certificate.yaml")
        }
        let result = try DevsimProcess.runToCompletion(
            executable: "/bin/bash", args: ["-c", "cd '\(folder.path)'\n" + command], timeout: 60)
        let report = folder.appendingPathComponent("report.json")
        let json = (try? JSONSerialization.jsonObject(with: Data(contentsOf: report))) as? [String: Any] ?? [:]
        return (result.status, json, result.stderr + "\nbroker log:\n" + brokerLog())
    }

    @Test func eachThingWithItsOwnCertificateIsRefusedNothing() throws {
        let run = try rehearse(certificate: nil)
        #expect(run.status == 0, "\(run.stderr)")
        #expect((run.report["acknowledged"] as? Int ?? 0) > 0, "\(run.report)")
        #expect(run.report["refused"] as? Int == 0, "\(run.report)")
    }

    /// The test can fail: as one thing, the fleet is refused the others' topics, and the
    /// expectation fails the run (exit 4).
    @Test func oneCertificateForEveryThingIsRefusedTheOthersTopics() throws {
        let run = try rehearse(certificate: "thing-1")
        #expect(run.status == 4, "\(run.stderr)")
        #expect((run.report["refused"] as? Int ?? 0) > 0, "\(run.report)")
    }
}
