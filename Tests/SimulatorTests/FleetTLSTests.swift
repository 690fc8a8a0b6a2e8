import Foundation
import Mosquitto
import Simulator
import Testing
import TestSupport

/// TLS through the event loop (the handshake runs inside `mosquitto_loop_read/write`), against a
/// mosquitto listener with a certificate made for the test.
@Suite(.serialized) struct FleetTLSTests {
    /// A CA and a server certificate it signed, for `host` (name or IP address).
    struct Certificates {
        let directory: String
        var ca: String { directory + "/ca.pem" }
        var certificate: String { directory + "/server.pem" }
        var key: String { directory + "/server.key" }

        init(host: String) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("devsim-tls-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let altName = host.first?.isNumber == true ? "IP:\(host)" : "DNS:\(host)"
            try Self.openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=devsim test CA",
                              "-keyout", directory + "/ca.key", "-out", directory + "/ca.pem"])
            try Self.openssl(["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=\(host)",
                              "-keyout", directory + "/server.key", "-out", directory + "/server.csr"])
            try "subjectAltName=\(altName)\n".write(toFile: directory + "/ext.cnf", atomically: true, encoding: .utf8)
            try Self.openssl(["x509", "-req", "-in", directory + "/server.csr", "-CA", directory + "/ca.pem",
                              "-CAkey", directory + "/ca.key", "-CAcreateserial", "-days", "1",
                              "-extfile", directory + "/ext.cnf", "-out", directory + "/server.pem"])
        }

        /// A client certificate signed by the same CA, as `client.pem` and `client.key`.
        func makeClientCertificate() throws {
            try Self.openssl(["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=devsim-client",
                              "-keyout", directory + "/client.key", "-out", directory + "/client.csr"])
            try Self.openssl(["x509", "-req", "-in", directory + "/client.csr", "-CA", directory + "/ca.pem",
                              "-CAkey", directory + "/ca.key", "-CAcreateserial", "-days", "1",
                              "-out", directory + "/client.pem"])
        }

        private static func openssl(_ arguments: [String]) throws {
            let result = try DevsimProcess.runToCompletion(executable: "/usr/bin/openssl", args: arguments, timeout: 30)
            guard result.status == 0 else { throw TLSSetupError(message: "openssl \(arguments.first ?? ""): \(result.stderr)") }
        }

        func remove() {
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    struct TLSSetupError: Error { let message: String }

    private func broker(_ certificates: Certificates) throws -> MosquittoBroker {
        try MosquittoBroker(extraConfig: ["cafile \(certificates.ca)", "certfile \(certificates.certificate)",
                                          "keyfile \(certificates.key)"])
    }

    private func scenario(tls: String) -> String {
        """
        broker:
          tls: \(tls)
        devices:
          - name: secure
            topic: "tls/{index}"
            publish: 20/s
            qos: 1
            payload:
              fields:
                v: { counter: 0 }
        """
    }

    @Test func connectsWithTheCAAndPublishes() throws {
        let certificates = try Certificates(host: "127.0.0.1")
        defer { certificates.remove() }
        let broker = try broker(certificates)
        let result = try #require(try FleetHarness.run(scenario(tls: "{ ca: \(certificates.ca) }"), port: broker.port,
                                                       settings: RunSettings(messages: 10, connectTimeout: 5, statsInterval: nil)))
        #expect(result.reason == .messages)
        #expect(result.totals.acknowledged == 10)
    }

    @Test func anUntrustedCertificateForAnotherHostIsRefusedUnlessInsecure() throws {
        let certificates = try Certificates(host: "elsewhere.example")
        defer { certificates.remove() }
        let broker = try broker(certificates)
        let refused = try #require(try FleetHarness.run(scenario(tls: "{ ca: \(certificates.ca) }"), port: broker.port,
                                                        settings: RunSettings(messages: 10, connectTimeout: 2, statsInterval: nil)))
        guard case .noConnection = refused.reason else {
            Issue.record("a certificate for another host must not be accepted: \(refused.reason)")
            return
        }
        // Insecure, as for a self-signed test broker: no CA, no host check.
        let insecure = try #require(try FleetHarness.run(scenario(tls: "{ insecure: true }"), port: broker.port,
                                                         settings: RunSettings(messages: 10, connectTimeout: 5, statsInterval: nil)))
        #expect(insecure.reason == .messages)
        #expect(insecure.totals.acknowledged == 10)
    }

    @Test func mutualTLSWithAClientCertificate() throws {
        let certificates = try Certificates(host: "127.0.0.1")
        defer { certificates.remove() }
        try certificates.makeClientCertificate()
        let broker = try MosquittoBroker(extraConfig: ["cafile \(certificates.ca)", "certfile \(certificates.certificate)",
                                                       "keyfile \(certificates.key)", "require_certificate true"])
        let withCertificate = try #require(try FleetHarness.run(
            scenario(tls: "{ ca: \(certificates.ca), certificate: \(certificates.directory)/client.pem, key: \(certificates.directory)/client.key }"),
            port: broker.port, settings: RunSettings(messages: 10, connectTimeout: 5, statsInterval: nil)))
        #expect(withCertificate.reason == .messages)
        #expect(withCertificate.totals.acknowledged == 10)
        let without = try #require(try FleetHarness.run(scenario(tls: "{ ca: \(certificates.ca) }"), port: broker.port,
                                                        settings: RunSettings(messages: 10, connectTimeout: 2, statsInterval: nil)))
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
        let certificates = try Certificates(host: "127.0.0.1")
        defer { certificates.remove() }
        let broker = try broker(certificates)
        let yaml = scenario(tls: "{ ca: \(certificates.ca) }").replacingOccurrences(of: "  tls: { ca: \(certificates.ca) }\n", with: "  keepalive: 60s\n")
        let result = try #require(try FleetHarness.run(yaml, port: broker.port,
                                                       settings: RunSettings(messages: 10, connectTimeout: 2, statsInterval: nil)))
        guard case .noConnection = result.reason else {
            Issue.record("plain MQTT must not get through a TLS listener: \(result.reason)")
            return
        }
        #expect(result.totals.scheduled == 0)
    }
}
