import Foundation
import Testing
import TestSupport

/// Issue 24, item 11: a TLS file that cannot serve is named, with its problem and the place the
/// scenario names it, by `validate` and by `run` before it connects (exit 2), not refused by
/// libmosquitto as "Invalid function arguments provided." naming no file.
@Suite(.tags(.integration), .notUnitOnly) struct TLSFileTests {
    enum Case: String, CaseIterable, CustomTestStringConvertible {
        case missingCA, caWithoutACertificate, garbageCertificate, keyOfAnotherCertificate, expiredCertificate

        var testDescription: String { rawValue }
    }

    /// The scenario's `tls` for `problem`, one key a line: `ca` at 3:9, `certificate` at 4:18,
    /// `key` at 5:10. Returns it with the place and the words the error must have.
    private func files(for problem: Case, _ certificates: TestCertificates) throws -> (tls: String, expected: String) {
        let directory = certificates.directory
        let garbage = directory + "/garbage.pem"
        try "not a certificate\n".write(toFile: garbage, atomically: true, encoding: .utf8)
        func tls(ca: String, certificate: String, key: String) -> String {
            "    ca: \(ca)\n    certificate: \(certificate)\n    key: \(key)\n"
        }
        switch problem {
        case .missingCA:
            return ("    ca: \(directory)/missing-ca.pem\n", ":3:9: broker.tls.ca: '\(directory)/missing-ca.pem' does not exist")
        case .caWithoutACertificate:
            return ("    ca: \(garbage)\n", ":3:9: broker.tls.ca: '\(garbage)' holds no PEM certificate")
        case .garbageCertificate:
            try certificates.makeClientCertificate()
            return (
                tls(ca: certificates.ca, certificate: garbage, key: directory + "/client.key"),
                ":4:18: broker.tls.certificate: '\(garbage)' is not a PEM certificate"
            )
        case .keyOfAnotherCertificate:
            try certificates.makeClientCertificate()
            return (
                tls(ca: certificates.ca, certificate: directory + "/client.pem", key: certificates.key),
                ":5:10: broker.tls.key: '\(certificates.key)' is not the key of '\(directory)/client.pem'"
            )
        case .expiredCertificate:
            try certificates.makeExpiredCertificate()
            return (
                tls(ca: certificates.ca, certificate: directory + "/expired.pem", key: directory + "/expired.key"),
                ":4:18: broker.tls.certificate: '\(directory)/expired.pem' expired on 2020-01-02"
            )
        }
    }

    @Test(arguments: Case.allCases) func validateAndRunNameTheFileAndItsProblemAndExit2(problem: Case) throws {
        let certificates = try TestCertificates(host: "127.0.0.1")
        defer { certificates.remove() }
        let (tls, expected) = try files(for: problem, certificates)
        let file = try RunFiles.scenario("tls-files.yaml", "broker:\n  tls:\n" + tls + RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: file) }
        let expectedLine = file + expected

        let validate = try DevsimProcess.runToCompletion(args: ["validate", file], timeout: 30)
        #expect(validate.status == 2, "\(validate.stdout)\(validate.stderr)")
        #expect(validate.stderr.contains(expectedLine), "\(validate.stderr)")

        // Nothing listens there: a run that tried to connect would end otherwise (exit 3).
        let port = try Loopback.freePort()
        let run = try DevsimRun(file, port: port, ["--duration", "3s", "--connect-timeout", "2s"], statsInterval: nil)
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains(expectedLine), "\(run.stderr)")
    }

    /// A reload (SIGHUP) checks them too: the fleet runs on as it was, and the file is named.
    @Test func aReloadToAMissingCAIsRefusedNamingIt() throws {
        let certificates = try TestCertificates(host: "127.0.0.1")
        defer { certificates.remove() }
        let broker = try MosquittoBroker(extraConfig: certificates.listenerConfig)
        let file = try RunFiles.scenario("tls-reload.yaml", "broker:\n  tls:\n    ca: \(certificates.ca)\n" + RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port)
        #expect(devsim.waitForOutput(containing: " connected\n", inStderr: true, timeout: 10), "\(devsim.stderr)")
        let missing = certificates.directory + "/missing-ca.pem"
        try ("broker:\n  tls:\n    ca: \(missing)\n" + RunFiles.oneDevice).write(toFile: file, atomically: true, encoding: .utf8)
        devsim.sendSignal(SIGHUP)
        #expect(devsim.waitForOutput(containing: "the fleet runs on as it was", inStderr: true, timeout: 10), "\(devsim.stderr)")
        #expect(devsim.stderr.contains("\(file):3:9: broker.tls.ca: '\(missing)' does not exist"), "\(devsim.stderr)")
        #expect(devsim.terminate(grace: 15) == 0, "\(devsim.stderr)")
    }
}
