import COpenSSL
import Glibc

/// Why OpenSSL refused a broker's certificate, in words with the way out: what libmosquitto's
/// `MOSQ_ERR_TLS` ("A TLS error occurred.") and OpenSSL's own "certificate verify failed" leave
/// out. Every context of `TLSContexts` verifies through `verified`, which records a refusal for
/// the thread whose handshake it is: a handshake step runs within one call on a loop's thread
/// (`SSL_connect`, or libmosquitto's `mosquitto_loop_read`), and `watching` that call returns it.
package enum CertificateVerification {
    /// Runs `step`, a handshake's, and returns its result with the refusal of the broker's
    /// certificate it met, if it met one.
    @inline(__always)
    package static func watching<Result>(_ step: () -> Result) -> (result: Result, refusal: String?) {
        _ = take()
        let result = step()
        return (result, take())
    }

    /// `SSL_CTX_set_verify`'s callback: OpenSSL's verdict on each certificate of the chain,
    /// unchanged, with a refusal recorded (the first ends the handshake).
    static func verified(_ passed: Int32, _ store: OpaquePointer?) -> Int32 {
        if passed == 0, let store {
            let error = X509_STORE_CTX_get_error(store)
            record(refusal(error: error, subject: X509_STORE_CTX_get_current_cert(store).flatMap(subject(of:))))
        }
        return passed
    }

    /// The refusal in words: OpenSSL's reason, the certificate it is about, and what would get
    /// past it.
    static func refusal(error: Int32, subject: String?) -> String {
        let reason = String(cString: X509_verify_cert_error_string(Int(error)))
        let fix =
            switch error {
            case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH: "connect by a name the certificate is for"
            case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CERT_NOT_YET_VALID: "check the clocks, or renew the certificate"
            default: "give its CA in tls.ca"
            }
        return "TLS: the broker's certificate is not trusted: \(reason)" + (subject.map { " (subject \($0))" } ?? "")
            + "; \(fix), or insecure: true for a test broker"
    }

    /// A certificate's subject as RFC 2253 writes it (`CN=broker.example,O=Example`):
    /// `X509_NAME_print_ex` into a memory BIO.
    static func subject(of certificate: OpaquePointer) -> String? {
        guard let name = X509_get_subject_name(certificate), let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard devsim_x509_name_print_rfc2253(bio, name) >= 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = BIO_read(bio, &buffer, Int32(buffer.count))
        return count > 0 ? String(decoding: buffer.prefix(Int(count)), as: UTF8.self) : nil
    }

    /// This thread's refusal: a `strdup`ed C string, freed when replaced or taken, or with the
    /// thread.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let rc = pthread_key_create(&key) { free($0) }
        precondition(rc == 0, "pthread_key_create failed")
        return key
    }()

    private static func record(_ refusal: String) {
        free(pthread_getspecific(key))
        pthread_setspecific(key, strdup(refusal))
    }

    private static func take() -> String? {
        guard let recorded = pthread_getspecific(key) else { return nil }
        pthread_setspecific(key, nil)
        defer { free(recorded) }
        return String(cString: recorded.assumingMemoryBound(to: CChar.self))
    }
}
