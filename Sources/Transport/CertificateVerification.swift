import COpenSSL
import Glibc

/// Why OpenSSL refused a broker's certificate, or the broker devsim's, in words with the way
/// out: what libmosquitto's `MOSQ_ERR_TLS` ("A TLS error occurred."), its "Protocol error" and
/// OpenSSL's own "certificate verify failed" leave out. Every context of `TLSContexts` verifies
/// through `verified`, and hears the broker's alerts through `alerted`, which record what they
/// saw for the thread whose handshake it is: a handshake step runs within one call on a loop's
/// thread (`SSL_connect`, or libmosquitto's `mosquitto_loop_read`), and `watching` that call
/// returns it.
package enum CertificateVerification {
    /// Runs `step`, a handshake's, and returns its result with the refusal it met, if it met
    /// one: of the broker's certificate, or the broker's fatal alert, which under TLS 1.3 comes
    /// after devsim's side of the handshake is done, when the broker has checked `certificate`
    /// (the client certificate's file, if devsim showed one).
    /// `finished`: the handshake finished within the step, which its failure may have undone
    /// since (libmosquitto frees a connection it gives up on within the call).
    @inline(__always)
    package static func watching<Result>(certificate: String?, _ step: () -> Result) -> (
        result: Result, refusal: String?, finished: Bool
    ) {
        _ = take()
        _ = takeAlert()
        pthread_setspecific(finishedKey, nil)
        pthread_setspecific(watchingKey, UnsafeRawPointer(bitPattern: 1))
        let result = step()
        pthread_setspecific(watchingKey, nil)
        let verdict = take()
        let alert = takeAlert()
        let finished = pthread_getspecific(finishedKey) != nil
        pthread_setspecific(finishedKey, nil)
        return (result, verdict ?? alert.map { refusal(alert: $0, certificate: certificate) }, finished)
    }

    /// What the step under way (`watching`) has met so far, left for `watching` to return: for a
    /// callback within the step, such as libmosquitto's `on_disconnect` after the alert.
    package static func metSoFar(certificate: String?) -> String? {
        if let recorded = pthread_getspecific(key) { return String(cString: recorded.assumingMemoryBound(to: CChar.self)) }
        return pthread_getspecific(alertKey).map { refusal(alert: Int32(Int(bitPattern: $0) - 1), certificate: certificate) }
    }

    /// `SSL_CTX_set_info_callback`'s callback: within a step `watching` watches, a fatal alert
    /// the broker sent is recorded, and the handshake's end; an established connection's alert
    /// is its reader's to report.
    static func alerted(_ event: Int32, _ value: Int32) {
        guard pthread_getspecific(watchingKey) != nil else { return }
        if event & SSL_CB_HANDSHAKE_DONE != 0 { pthread_setspecific(finishedKey, UnsafeRawPointer(bitPattern: 1)) }
        guard event & SSL_CB_READ_ALERT == SSL_CB_READ_ALERT, value >> 8 == SSL3_AL_FATAL else { return }
        pthread_setspecific(alertKey, UnsafeRawPointer(bitPattern: Int(value & 0xFF) + 1))
    }

    /// The broker's fatal alert in words. One about a certificate, after devsim showed one, is
    /// the broker refusing it: named by its file, subject and issuer, with the way out.
    static func refusal(alert: Int32, certificate: String?) -> String {
        // OpenSSL 3 names certificate_required (TLS 1.3) "unknown". A decrypt error is about a
        // certificate devsim showed: its signature did not verify (a CA of the same name, with
        // another key, signed it).
        var certificateAlerts: [Int32: String] = [
            42: "bad certificate", 43: "unsupported certificate", 44: "certificate revoked", 45: "certificate expired",
            46: "certificate unknown", 48: "unknown CA", 49: "access denied", 116: "certificate required",
        ]
        if certificate != nil { certificateAlerts[51] = "decrypt error" }
        let said = "alert '\(certificateAlerts[alert] ?? String(cString: SSL_alert_desc_string_long(alert)))'"
        guard certificateAlerts[alert] != nil else { return "TLS: the broker ended the connection: \(said)" }
        guard let certificate else {
            return "TLS: the broker asks for a client certificate (\(said)): give one in tls.certificate and tls.key"
        }
        let fix =
            switch alert {
            case 48, 51:
                "the broker trusts no CA that signed it: give the broker that CA (mosquitto: cafile), or use a certificate one it trusts signed"
            case 45: "it has expired, or the clocks disagree: renew it"
            case 44: "it was revoked: use another"
            default: "use one for client authentication, signed by a CA the broker trusts"
            }
        return "TLS: the broker refused the client certificate \(named(certificate)) with \(said); \(fix)"
    }

    /// A client certificate's file, subject and issuer: `'device.pem' (subject CN=thing-7,
    /// issued by CN=Fleet CA)`.
    package static func named(_ certificate: String) -> String {
        let names = TLSFiles.names(ofCertificateAt: certificate)
        let named = [names.subject.map { "subject " + $0 }, names.issuer.map { "issued by " + $0 }].compactMap { $0 }
        return "'\(certificate)'" + (named.isEmpty ? "" : " (\(named.joined(separator: ", ")))")
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
        X509_get_subject_name(certificate).flatMap(text(of:))
    }

    /// Its issuer's name, as `subject` writes it.
    static func issuer(of certificate: OpaquePointer) -> String? {
        X509_get_issuer_name(certificate).flatMap(text(of:))
    }

    private static func text(of name: OpaquePointer) -> String? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
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

    /// This thread's last fatal alert from a broker, plus one: a number, not a pointer.
    private static let alertKey = makeKey()

    /// Set while this thread runs a step `watching` watches.
    private static let watchingKey = makeKey()

    /// Set when this thread's handshake step finished a handshake.
    private static let finishedKey = makeKey()

    /// A thread's slot for a number or a flag, which needs no freeing.
    private static func makeKey() -> pthread_key_t {
        var key = pthread_key_t()
        let rc = pthread_key_create(&key, nil)
        precondition(rc == 0, "pthread_key_create failed")
        return key
    }

    private static func takeAlert() -> Int32? {
        guard let recorded = pthread_getspecific(alertKey) else { return nil }
        pthread_setspecific(alertKey, nil)
        return Int32(Int(bitPattern: recorded) - 1)
    }
}
