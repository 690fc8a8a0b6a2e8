import Foundation

/// A CA made for one test and a server certificate it signed, for `host` (a name or an IP
/// address), in a temporary folder that `remove()` deletes:
///
/// ```swift
/// let certificates = try TestCertificates(host: "127.0.0.1")
/// defer { certificates.remove() }
/// let broker = try MosquittoBroker(extraConfig: certificates.listenerConfig)
/// ```
public struct TestCertificates: Sendable {
    public let directory: String
    public var ca: String { directory + "/ca.pem" }
    public var certificate: String { directory + "/server.pem" }
    public var key: String { directory + "/server.key" }
    /// `mosquitto.conf` lines that put the broker's listener on TLS with this certificate.
    public var listenerConfig: [String] { ["cafile \(ca)", "certfile \(certificate)", "keyfile \(key)"] }
    /// `mosquitto.conf` lines that put the broker's listener on TLS with a self-signed
    /// certificate: the CA's own, whose subject is `CN=devsim test CA`.
    public var selfSignedListenerConfig: [String] { ["certfile \(ca)", "keyfile \(directory)/ca.key"] }

    /// `authority`: the CA's common name; two CAs of one name are two CAs all the same.
    public init(host: String, authority: String = "devsim test CA") throws(TestSupportError) {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("devsim-tls-\(UUID().uuidString)").path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try "subjectAltName=\(host.first?.isNumber == true ? "IP" : "DNS"):\(host)\n"
                .write(toFile: directory + "/ext.cnf", atomically: true, encoding: .utf8)
        } catch {
            throw TestSupportError("cannot make \(directory): \(error)")
        }
        try openssl([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=\(authority)",
            "-keyout", directory + "/ca.key", "-out", ca,
        ])
        try sign("server", subject: host, extensions: directory + "/ext.cnf")
    }

    /// A client certificate signed by the same CA, as `client.pem` and `client.key`.
    public func makeClientCertificate() throws(TestSupportError) {
        try sign("client", subject: "devsim-client", extensions: nil)
    }

    /// A client certificate signed by the same CA that expired on 2 January 2020, as
    /// `expired.pem` and `expired.key`: `openssl ca`, the one command that takes the dates.
    public func makeExpiredCertificate() throws(TestSupportError) {
        let base = directory + "/expired"
        let config = """
            [ca]
            default_ca = test
            [test]
            database = \(directory)/index.txt
            new_certs_dir = \(directory)
            serial = \(directory)/serial
            default_md = sha256
            policy = any
            [any]
            commonName = supplied
            """
        do {
            try config.write(toFile: base + ".cnf", atomically: true, encoding: .utf8)
            try "".write(toFile: directory + "/index.txt", atomically: true, encoding: .utf8)
            try "01\n".write(toFile: directory + "/serial", atomically: true, encoding: .utf8)
        } catch {
            throw TestSupportError("cannot write the files of openssl ca in \(directory): \(error)")
        }
        try openssl(["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=expired", "-keyout", base + ".key", "-out", base + ".csr"])
        try openssl([
            "ca", "-batch", "-config", base + ".cnf", "-cert", ca, "-keyfile", directory + "/ca.key", "-in", base + ".csr",
            "-out", base + ".pem", "-startdate", "20200101000000Z", "-enddate", "20200102000000Z", "-notext",
        ])
    }

    /// A client certificate for each of `ids`, `<id>.pem` and `<id>.key`, whose subject is
    /// `CN=<id>`, signed by the same CA: EC P-256 in one `openssl req -x509 -CA` each, about
    /// 9 ms a device where RSA takes 240.
    public func makeDeviceCertificates(ids: [String]) throws(TestSupportError) {
        let config = directory + "/device.cnf"
        do {
            // Without its own section `req -x509` would mark the device's certificate a CA's.
            try """
            [req]
            distinguished_name = dn
            prompt = no
            [dn]
            [device]
            basicConstraints = critical,CA:FALSE
            keyUsage = critical,digitalSignature
            extendedKeyUsage = clientAuth
            """.write(toFile: config, atomically: true, encoding: .utf8)
        } catch {
            throw TestSupportError("cannot write \(config): \(error)")
        }
        for id in ids {
            try openssl([
                "req", "-x509", "-config", config, "-extensions", "device", "-CA", ca, "-CAkey", directory + "/ca.key",
                "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1", "-subj", "/CN=\(id)",
                "-keyout", "\(directory)/\(id).key", "-out", "\(directory)/\(id).pem",
            ])
        }
    }

    public func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func sign(_ name: String, subject: String, extensions: String?) throws(TestSupportError) {
        let base = directory + "/" + name
        try openssl(["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=\(subject)", "-keyout", base + ".key", "-out", base + ".csr"])
        try openssl(
            [
                "x509", "-req", "-in", base + ".csr", "-CA", ca, "-CAkey", directory + "/ca.key", "-CAcreateserial",
                "-days", "1", "-out", base + ".pem",
            ] + (extensions.map { ["-extfile", $0] } ?? []))
    }

    private func openssl(_ arguments: [String]) throws(TestSupportError) {
        let result = try DevsimProcess.runToCompletion(executable: "/usr/bin/openssl", args: arguments, timeout: 30)
        guard result.status == 0 else { throw TestSupportError("openssl \(arguments.first ?? ""): \(result.stderr)") }
    }
}
