import COpenSSL
import Glibc
import MQTT

/// The files of TLS settings, checked before any connection needs them: libmosquitto refuses
/// one it cannot use as "Invalid function arguments provided.", naming nothing, and a broker
/// refuses an expired client certificate with a bare alert.
package enum TLSFiles {
    /// Every problem with the files `settings` names, read as OpenSSL reads them for a
    /// connection: each exists and can be read; the CA file holds PEM certificates, one of them
    /// valid now; the certificate is PEM and valid now; the key is PEM, not encrypted (devsim has
    /// no passphrase to give), and the certificate's. Reads the files: for `validate`, and for
    /// `run` before it connects, not on an event loop.
    package static func problems(in settings: TLSSettings, now: time_t = time(nil)) -> [TLSFileProblem] {
        defer { ERR_clear_error() }
        var problems: [TLSFileProblem] = []
        func check(_ setting: String, _ file: String?, _ read: (OpaquePointer, String) -> String?) {
            guard let file else { return }
            let problem: String?
            switch open(file) {
            case .success(let bio):
                problem = read(bio, file)
                BIO_free(bio)
            case .failure(let unreadable):
                problem = unreadable.problem
            }
            if let problem { problems.append(TLSFileProblem(setting: setting, file: file, problem: problem)) }
        }
        check("ca", settings.ca) { bio, _ in authorities(in: bio, now: now) }
        var certificate: OpaquePointer?
        defer { X509_free(certificate) }
        check("certificate", settings.certificate) { bio, _ in
            certificate = PEM_read_bio_X509_AUX(bio, nil, nil, nil)
            guard let certificate else { return "is not a PEM certificate" + reason() }
            return validity(of: certificate, now: now)
        }
        check("key", settings.key) { bio, file in
            var asksForPassphrase = false
            let key = PEM_read_bio_PrivateKey(
                bio, nil,
                { _, _, _, asked in
                    asked?.storeBytes(of: true, as: Bool.self)
                    return -1
                }, &asksForPassphrase)
            defer { EVP_PKEY_free(key) }
            guard let key else {
                return asksForPassphrase
                    ? "is encrypted, and devsim has no passphrase to give: decrypt it (openssl pkey -in '\(file)' -out KEY)"
                    : "is not a PEM private key" + reason()
            }
            guard let certificate, let certificateFile = settings.certificate else { return nil }
            return X509_check_private_key(certificate, key) == 1 ? nil : "is not the key of '\(certificateFile)'"
        }
        return problems
    }

    /// The subject of the certificate at `path` as RFC 2253 writes it (`CN=thing-7`), or nil
    /// for a file that holds none: what `sample` shows of a device's certificate.
    package static func subject(ofCertificateAt path: String) -> String? {
        names(ofCertificateAt: path).subject
    }

    /// The subject and issuer of the certificate at `path`, as RFC 2253 writes them; nil for
    /// a file that holds none.
    static func names(ofCertificateAt path: String) -> (subject: String?, issuer: String?) {
        defer { ERR_clear_error() }
        guard case .success(let bio) = open(path) else { return (nil, nil) }
        defer { BIO_free(bio) }
        guard let certificate = PEM_read_bio_X509_AUX(bio, nil, nil, nil) else { return (nil, nil) }
        defer { X509_free(certificate) }
        return (CertificateVerification.subject(of: certificate), CertificateVerification.issuer(of: certificate))
    }

    private struct Unreadable: Error {
        let problem: String
    }

    /// `path`'s contents as a BIO (`BIO_new_file`), or what keeps it from being read.
    private static func open(_ path: String) -> Result<OpaquePointer, Unreadable> {
        var status = stat()
        guard stat(path, &status) == 0 else {
            return .failure(Unreadable(problem: errno == ENOENT ? "does not exist" : "cannot be read: " + String(cString: strerror(errno))))
        }
        guard status.st_mode & S_IFMT != S_IFDIR else { return .failure(Unreadable(problem: "is a directory, not a file")) }
        guard let bio = BIO_new_file(path, "r") else {
            return .failure(Unreadable(problem: "cannot be read: " + String(cString: strerror(errno))))
        }
        return .success(bio)
    }

    /// A CA file's problem: no PEM certificate in it, a PEM block that is not one, or none of
    /// its certificates valid now.
    private static func authorities(in bio: OpaquePointer, now: time_t) -> String? {
        var count = 0
        var firstInvalidity: String?
        var anyValid = false
        ERR_clear_error()
        while let certificate = PEM_read_bio_X509_AUX(bio, nil, nil, nil) {
            defer { X509_free(certificate) }
            count += 1
            if let invalidity = validity(of: certificate, now: now) {
                firstInvalidity = firstInvalidity ?? "'\(subject(of: certificate))' " + invalidity
            } else {
                anyValid = true
            }
        }
        // The loop ends at the end of the PEM blocks, or at one that is not a certificate.
        let error = ERR_peek_last_error()
        if error != 0, ERR_GET_REASON(error) != PEM_R_NO_START_LINE {
            return "is not valid PEM" + (count > 0 ? " after its \(count == 1 ? "first certificate" : "\(count) certificates")" : "")
                + reason()
        }
        guard count > 0 else { return "holds no PEM certificate" }
        return anyValid ? nil : "holds no certificate valid now: " + (firstInvalidity ?? "")
    }

    /// "expired on …" or "is not valid before …", or `nil` for a certificate valid `now`.
    private static func validity(of certificate: OpaquePointer, now: time_t) -> String? {
        var now = now
        if let notAfter = X509_get0_notAfter(certificate), X509_cmp_time(notAfter, &now) < 0 {
            return "expired on " + text(notAfter)
        }
        if let notBefore = X509_get0_notBefore(certificate), X509_cmp_time(notBefore, &now) > 0 {
            return "is not valid before " + text(notBefore)
        }
        return nil
    }

    /// `2020-01-02 00:00:00 UTC`: `ASN1_TIME_to_tm`, `strftime`.
    private static func text(_ time: UnsafePointer<ASN1_TIME>) -> String {
        var moment = tm()
        guard ASN1_TIME_to_tm(time, &moment) == 1 else { return "an unreadable date" }
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S UTC", &moment)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func subject(of certificate: OpaquePointer) -> String {
        CertificateVerification.subject(of: certificate) ?? "a certificate"
    }

    /// OpenSSL's reason for the last failure, as ": …", or "".
    private static func reason() -> String {
        let error = ERR_peek_last_error()
        guard error != 0, ERR_GET_REASON(error) != PEM_R_NO_START_LINE, let text = ERR_reason_error_string(error) else { return "" }
        return ": " + String(cString: text)
    }
}
