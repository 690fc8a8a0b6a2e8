import Foundation
import Report
import Simulator
import Testing
import TestSupport

/// Each device its own identity against a real mosquitto that allows a client to write only its
/// own topics (`pattern write things/%u/#`), as AWS IoT Core's thing policies do. Over MQTT 5, so
/// that the broker's refusal of a denied message (0x87) counts as `refused`: over 3.1.1
/// mosquitto acknowledges it as if it were taken.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct FleetIdentityTests {
    private static let count = 20

    /// Every device writes its own topics, the verifier reads all.
    private let acl = "pattern write things/%u/#\nuser verifier\ntopic read things/#\n"

    private func scenario(broker: String, verify: String) -> String {
        """
        broker:
          protocol: mqtt5
        \(broker)
        verify:
        \(verify)
        devices:
          - name: thing
            count: \(Self.count)
            id: "thing-{index}"
            topic: "things/{id}/telemetry"
            publish: 20/s
            qos: 1
            payload:
              fields:
                v: { counter: 0 }
        """
    }

    private var settings: RunSettings {
        var settings = RunSettings(messages: 200, connectTimeout: .seconds(5), statsInterval: nil)
        settings.verify = true
        return settings
    }

    /// `use_identity_as_username`: the certificate's CN is the user the ACL knows.
    private func certificateBroker() throws -> (MosquittoBroker, TestCertificates) {
        let certificates = try TestCertificates(host: "127.0.0.1")
        try certificates.makeDeviceCertificates(ids: (1...Self.count).map { "thing-\($0)" } + ["verifier"])
        let broker = try MosquittoBroker(
            acl: acl, extraConfig: certificates.listenerConfig + ["require_certificate true", "use_identity_as_username true"])
        return (broker, certificates)
    }

    private func certificateScenario(_ certificates: TestCertificates, certificate: String) -> String {
        let directory = certificates.directory
        return scenario(
            broker:
                "  tls: { ca: \(certificates.ca), certificate: \"\(directory)/\(certificate).pem\", key: \"\(directory)/\(certificate).key\" }",
            verify: "  tls: { ca: \(certificates.ca), certificate: \(directory)/verifier.pem, key: \(directory)/verifier.key }")
    }

    @Test func eachDeviceWithItsOwnCertificateWritesItsOwnTopics() throws {
        let (broker, certificates) = try certificateBroker()
        defer { certificates.remove() }
        let result = try #require(
            try FleetHarness.run(certificateScenario(certificates, certificate: "{id}"), port: broker.port, settings: settings))
        #expect(result.reason == .messages)
        #expect(result.totals[.acknowledged] == 200)
        #expect(result.totals[.refused] == 0)
        let verify = try #require(result.verify)
        #expect(verify.received == 200 && verify.lost == 0, "\(verify)")
    }

    /// The test can fail: with one certificate for the fleet every device is `thing-1`, and the
    /// broker refuses what the others write.
    @Test func oneCertificateForTheFleetIsRefusedOtherDevicesTopics() throws {
        let (broker, certificates) = try certificateBroker()
        defer { certificates.remove() }
        let result = try #require(
            try FleetHarness.run(certificateScenario(certificates, certificate: "thing-1"), port: broker.port, settings: settings))
        #expect(result.totals[.refused] > 0)
        #expect(result.totals[.acknowledged] < 200)
    }

    private func passwordBroker(_ users: [String: String]) throws -> MosquittoBroker {
        try MosquittoBroker(users: users, allowAnonymous: false, acl: acl)
    }

    @Test func templatedUserNamesAndPasswords() throws {
        var users = Dictionary(uniqueKeysWithValues: (1...Self.count).map { ("thing-\($0)", "pw-thing-\($0)") })
        users["verifier"] = "watch"
        let broker = try passwordBroker(users)
        let yaml = scenario(broker: "  username: \"{id}\"\n  password: \"pw-{id}\"", verify: "  username: verifier\n  password: watch")
        let result = try #require(try FleetHarness.run(yaml, port: broker.port, settings: settings))
        #expect(result.reason == .messages)
        #expect(result.totals[.acknowledged] == 200)
        #expect(result.totals[.refused] == 0)
        #expect(result.verify?.lost == 0)
    }

    @Test func userNamesAndPasswordsFromACredentialsFile() throws {
        // Passwords no template could make.
        let passwords = (1...Self.count).map { "thing-\($0)" }.map { ($0, String(UUID().uuidString.prefix(12))) }
        var users = Dictionary(uniqueKeysWithValues: passwords)
        users["verifier"] = "watch"
        let broker = try passwordBroker(users)
        let csv = FileManager.default.temporaryDirectory.appendingPathComponent("devsim-credentials-\(UUID().uuidString).csv").path
        defer { try? FileManager.default.removeItem(atPath: csv) }
        try ("id,username,password\n" + passwords.map { "\($0.0),\($0.0),\($0.1)\n" }.joined()).write(
            toFile: csv, atomically: true, encoding: .utf8)
        let yaml = scenario(broker: "  credentials: \(csv)", verify: "  username: verifier\n  password: watch")
        let result = try #require(try FleetHarness.run(yaml, port: broker.port, settings: settings))
        #expect(result.reason == .messages)
        #expect(result.totals[.acknowledged] == 200)
        #expect(result.totals[.refused] == 0)
        #expect(result.verify?.lost == 0)
    }
}
