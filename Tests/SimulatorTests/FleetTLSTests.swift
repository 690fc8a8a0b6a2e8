import Foundation
import Mosquitto
import Report
import Simulator
import Testing
import TestSupport

/// TLS through the event loop (the handshake runs inside `mosquitto_loop_read/write`), against a
/// mosquitto listener with a certificate made for the test.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct FleetTLSTests {
    private func broker(_ certificates: TestCertificates) throws -> MosquittoBroker {
        try MosquittoBroker(extraConfig: certificates.listenerConfig)
    }

    private func scenario(tls: String) -> String {
        ScenarioText(broker: ["tls: \(tls)"], group: "secure", topic: "tls/{index}", publish: "20/s", qos: 1, fields: "v: { counter: 0 }")
            .text
    }

    @Test func connectsWithTheCAAndPublishes() throws {
        let certificates = try TestCertificates(host: "127.0.0.1")
        defer { certificates.remove() }
        let broker = try broker(certificates)
        let result = try #require(
            try FleetHarness.run(
                scenario(tls: "{ ca: \(certificates.ca) }"), port: broker.port,
                settings: RunSettings(messages: 10, connectTimeout: .seconds(5), statsInterval: nil)))
        #expect(result.reason == .messages)
        #expect(result.totals[.acknowledged] == 10)
    }

    @Test func anUntrustedCertificateForAnotherHostIsRefusedUnlessInsecure() throws {
        let certificates = try TestCertificates(host: "elsewhere.example")
        defer { certificates.remove() }
        let broker = try broker(certificates)
        let refused = try #require(
            try FleetHarness.run(
                scenario(tls: "{ ca: \(certificates.ca) }"), port: broker.port,
                settings: RunSettings(messages: 10, connectTimeout: .seconds(2), statsInterval: nil)))
        guard case .noConnection = refused.reason else {
            Issue.record("a certificate for another host must not be accepted: \(refused.reason)")
            return
        }
        // Insecure, as for a self-signed test broker: no CA, no host check.
        let insecure = try #require(
            try FleetHarness.run(
                scenario(tls: "{ insecure: true }"), port: broker.port,
                settings: RunSettings(messages: 10, connectTimeout: .seconds(5), statsInterval: nil)))
        #expect(insecure.reason == .messages)
        #expect(insecure.totals[.acknowledged] == 10)
    }

    @Test func mutualTLSWithAClientCertificate() throws {
        let certificates = try TestCertificates(host: "127.0.0.1")
        defer { certificates.remove() }
        try certificates.makeClientCertificate()
        let broker = try MosquittoBroker(extraConfig: certificates.listenerConfig + ["require_certificate true"])
        let withCertificate = try #require(
            try FleetHarness.run(
                scenario(
                    tls:
                        "{ ca: \(certificates.ca), certificate: \(certificates.directory)/client.pem, key: \(certificates.directory)/client.key }"
                ),
                port: broker.port, settings: RunSettings(messages: 10, connectTimeout: .seconds(5), statsInterval: nil)))
        #expect(withCertificate.reason == .messages)
        #expect(withCertificate.totals[.acknowledged] == 10)
        let without = try #require(
            try FleetHarness.run(
                scenario(tls: "{ ca: \(certificates.ca) }"), port: broker.port,
                settings: RunSettings(messages: 10, connectTimeout: .seconds(2), statsInterval: nil)))
        guard case .noConnection = without.reason else {
            Issue.record("a broker that requires a client certificate must refuse a client without one: \(without.reason)")
            return
        }
    }

    @Test func aCAFileThatCannotBeReadIsAClearErrorNotACrash() throws {
        let yaml = scenario(tls: "{ ca: /nonexistent/ca.pem }")
        #expect {
            _ = try FleetHarness(yaml, port: 1)
        } throws: { error in
            (error as? ClientSetupError)?.option == "tls"
        }
    }

    @Test func plainMQTTAgainstATLSListenerNeverConnects() throws {
        let certificates = try TestCertificates(host: "127.0.0.1")
        defer { certificates.remove() }
        let broker = try broker(certificates)
        let yaml = scenario(tls: "{ ca: \(certificates.ca) }").replacingOccurrences(
            of: "  tls: { ca: \(certificates.ca) }\n", with: "  keepalive: 60s\n")
        let result = try #require(
            try FleetHarness.run(
                yaml, port: broker.port,
                settings: RunSettings(messages: 10, connectTimeout: .seconds(2), statsInterval: nil)))
        guard case .noConnection = result.reason else {
            Issue.record("plain MQTT must not get through a TLS listener: \(result.reason)")
            return
        }
        #expect(result.totals[.scheduled] == 0)
    }
}
