import Foundation
import Testing
import TestSupport

/// `scripts/make-device-certs.sh` (issue 27): a CA, a server certificate and one client
/// certificate per device id, each checked here by `openssl` itself, not by devsim's code.
@Suite(.tags(.integration), .notUnitOnly) struct DeviceCertificatesScriptTests {
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/make-device-certs.sh").path

    private func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32?, stdout: String, stderr: String) {
        try DevsimProcess.runToCompletion(executable: executable, args: arguments, timeout: 60)
    }

    @Test func eachIdGetsACertificateForClientsWithItsIdAsCN() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("devsim-certs-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let ids = ["thing-1", "sensor.b", "c@3"]
        try (ids.joined(separator: "\n") + "\n\n").write(toFile: folder + "/ids.txt", atomically: true, encoding: .utf8)
        let out = folder + "/certs"
        let made = try run("/bin/bash", [Self.script, "--out", out, "--ids", folder + "/ids.txt", "--host", "127.0.0.1", "--days", "2"])
        #expect(made.status == 0, "\(made.stderr)")
        for id in ids {
            let verified = try run("/usr/bin/openssl", ["verify", "-CAfile", out + "/ca.pem", "-purpose", "sslclient", out + "/\(id).pem"])
            #expect(verified.status == 0 && verified.stdout.hasSuffix(": OK\n"), "\(id): \(verified.stdout)\(verified.stderr)")
            let subject = try run("/usr/bin/openssl", ["x509", "-in", out + "/\(id).pem", "-noout", "-subject", "-nameopt", "RFC2253"])
            #expect(subject.stdout == "subject=CN=\(id)\n")
            let matches = try run("/usr/bin/openssl", ["pkey", "-in", out + "/\(id).key", "-pubout"])
            let published = try run("/usr/bin/openssl", ["x509", "-in", out + "/\(id).pem", "-noout", "-pubkey"])
            #expect(!matches.stdout.isEmpty && matches.stdout == published.stdout, "\(id).key is the key of \(id).pem")
        }
        let server = try run("/usr/bin/openssl", ["verify", "-CAfile", out + "/ca.pem", "-purpose", "sslserver", out + "/server.pem"])
        #expect(server.status == 0, "\(server.stdout)\(server.stderr)")
        let names = try run("/usr/bin/openssl", ["x509", "-in", out + "/server.pem", "-noout", "-ext", "subjectAltName"])
        #expect(names.stdout.contains("IP Address:127.0.0.1"), "\(names.stdout)")
        // A second run reuses the CA: what the first made still verifies.
        let ca = try String(contentsOfFile: out + "/ca.pem", encoding: .utf8)
        let again = try run("/bin/bash", [Self.script, "--out", out, "--prefix", "more-", "--count", "1"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try String(contentsOfFile: out + "/ca.pem", encoding: .utf8) == ca)
    }

    @Test(arguments: [
        (["--prefix", "x"], "--out DIR is required"),
        (["--out", "/tmp/unused", "--count", "3"], "--count needs --prefix (--prefix '' for bare numbers)"),
        (["--out", "/tmp/unused", "--prefix", "x", "--count", "three"], "--count expects a whole number from 1, found 'three'"),
        (["--out", "/tmp/unused", "--ids", "/nonexistent/ids"], "cannot read the ids file '/nonexistent/ids'"),
        (
            ["--out", "/tmp/unused", "--prefix", "../", "--count", "1"],
            "device id '../1' has characters other than letters, digits and . _ : @ -"
        ),
        (["--bogus"], "unknown option '--bogus'"),
    ])
    func mistakesAreNamedWithTheUsage(arguments: [String], message: String) throws {
        let result = try run("/bin/bash", [Self.script] + arguments)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("make-device-certs.sh: \(message)\nusage: "), "\(result.stderr)")
    }
}
