import Foundation
import Testing
import TestSupport

/// The README's rehearsal of AWS IoT Core, as a user would run it: certificates from
/// `scripts/make-device-certs.sh`, a mosquitto that takes each certificate's name as its user and
/// lets each thing write only its own topics, and the shipped `scenarios/aws-iot-core.yaml`.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct AWSRehearsalTests {
    private let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private func makeCertificates(in folder: String) throws {
        for (prefix, count) in [("thing-", 10), ("sensor-", 5)] {
            let made = try DevsimProcess.runToCompletion(
                executable: "/bin/bash",
                args: [
                    repository.appendingPathComponent("scripts/make-device-certs.sh").path, "--out", folder, "--host", "127.0.0.1",
                    "--prefix", prefix, "--count", String(count),
                ], timeout: 60)
            try #require(made.status == 0, "\(made.stderr)")
        }
    }

    /// `certificate`: each thing's own (`{id}`), or one for the fleet, which the ACL refuses
    /// the other things' topics.
    private func rehearse(certificate: String?) throws -> (status: Int32?, report: [String: Any], stderr: String) {
        let folder = try RunFiles.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let certs = folder.path + "/certs"
        try makeCertificates(in: certs)
        let broker = try MosquittoBroker(
            acl: "pattern write things/%u/#\npattern write $aws/things/%u/shadow/#\n",
            extraConfig: [
                "cafile \(certs)/ca.pem", "certfile \(certs)/server.pem", "keyfile \(certs)/server.key", "require_certificate true",
                "use_identity_as_username true",
            ])
        var scenario = repository.appendingPathComponent("scenarios/aws-iot-core.yaml").path
        if let certificate {
            // The shipped scenario with one certificate for every thing.
            let text = try String(contentsOfFile: scenario, encoding: .utf8).replacingOccurrences(of: "/{id}.", with: "/\(certificate).")
            scenario = folder.path + "/aws-one-certificate.yaml"
            try text.write(toFile: scenario, atomically: true, encoding: .utf8)
        }
        let report = folder.path + "/report.json"
        let run = try DevsimProcess.runToCompletion(
            args: [
                "run", scenario, "--host", "127.0.0.1", "--port", String(broker.port), "--protocol", "mqtt5", "--duration", "6s",
                "--expect", "refused==0", "--report", report,
            ],
            env: ["AWS_IOT_CERTS": certs, "SSL_CERT_FILE": certs + "/ca.pem"], timeout: 60)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any] ?? [:]
        return (run.status, json, run.stderr)
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
