import COpenSSL
import Glibc
import MQTT
import Reactor

/// One `SSL_CTX` per set of TLS settings and broker host for the whole process, made at first use
/// and shared by every connection with them, libmosquitto's (`MOSQ_OPT_SSL_CTX`) and the
/// WebSocket bridge's: the CA file is read once, not at every connection, and every handshake is
/// verified the same way, by OpenSSL with `CertificateVerification` watching, which names what
/// it refuses. OpenSSL's contexts may be shared by threads once set up. A context is kept for
/// the process, as long as its files are as they were.
package enum TLSContexts {
    private struct Key: Hashable {
        let settings: TLSSettings
        let host: String
        /// Each file's inode, size and change time: a file replaced at its path (a renewed
        /// certificate, before a reload) makes a context anew, not the old one's.
        let files: [[Int]]
    }

    /// `stat(2)` of each file of `settings`; a file that cannot be read is empty here, and its
    /// context fails to be made.
    private static func stamps(of settings: TLSSettings) -> [[Int]] {
        [settings.ca, settings.certificate, settings.key].map { path in
            var status = stat()
            guard let path, stat(path, &status) == 0 else { return [] }
            return [Int(status.st_ino), Int(status.st_size), status.st_ctim.tv_sec, status.st_ctim.tv_nsec]
        }
    }

    private static let contexts = Locked<[Key: UnsafeSendable]>([:])

    /// An `SSL_CTX *`, unchanged after it is made.
    private struct UnsafeSendable: @unchecked Sendable {
        let context: OpaquePointer
    }

    /// The context for `settings`, whose verification checks that the broker's certificate is
    /// for `host` (a name or an address), unless `insecure`. Never freed: a client that holds it
    /// (libmosquitto takes a reference) may outlive any owner here.
    package static func context(for settings: TLSSettings, host: String) throws(TransportError) -> OpaquePointer {
        let key = Key(settings: settings, host: host, files: stamps(of: settings))
        let result: Swift.Result<OpaquePointer, TransportError> = contexts.withLock { contexts in
            if let made = contexts[key] { return .success(made.context) }
            switch make(key) {
            case .success(let context):
                contexts[key] = UnsafeSendable(context: context)
                return .success(context)
            case .failure(let error):
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The failures are sentences without "TLS: ", which whoever reports them puts in front.
    private static func make(_ key: Key) -> Swift.Result<OpaquePointer, TransportError> {
        let settings = key.settings
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else { return .failure(TransportError(lastError())) }
        func failure(_ what: String) -> Swift.Result<OpaquePointer, TransportError> {
            let detail = lastError()
            SSL_CTX_free(context)
            return .failure(TransportError(what + (detail.isEmpty ? "" : ": " + detail)))
        }
        if let ca = settings.ca {
            guard SSL_CTX_load_verify_locations(context, ca, nil) == 1 else { return failure("cannot read the CA file '\(ca)'") }
        } else if SSL_CTX_set_default_verify_paths(context) != 1 {
            return failure("cannot read the system's trusted certificates")
        }
        if let certificate = settings.certificate, let key = settings.key {
            guard SSL_CTX_use_certificate_chain_file(context, certificate) == 1 else {
                return failure("cannot read the client certificate '\(certificate)'")
            }
            guard SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) == 1 else { return failure("cannot read the key '\(key)'") }
            guard SSL_CTX_check_private_key(context) == 1 else { return failure("the key '\(key)' is not the certificate's") }
        }
        if settings.insecure {
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        } else {
            // The name or address is checked by OpenSSL as part of the chain, so that its
            // refusal is seen and named like any other.
            var address = in6_addr()
            let isAddress = inet_pton(AF_INET, key.host, &address) == 1 || inet_pton(AF_INET6, key.host, &address) == 1
            let parameters = SSL_CTX_get0_param(context)
            let named =
                isAddress ? X509_VERIFY_PARAM_set1_ip_asc(parameters, key.host) : X509_VERIFY_PARAM_set1_host(parameters, key.host, 0)
            guard named == 1 else { return failure("cannot verify certificates for '\(key.host)'") }
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER) { passed, store in CertificateVerification.verified(passed, store) }
        }
        // As libmosquitto's own: TLS 1.2 at least, and buffers given back while a connection is
        // idle, which most of a fleet's are.
        _ = devsim_ssl_ctx_set_min_tls12(context)
        _ = devsim_ssl_ctx_set_modes(context)
        // A broker that closes without close_notify, as most do, reads as an end of stream, not
        // as "unexpected eof while reading".
        _ = devsim_ssl_ctx_ignore_unexpected_eof(context)
        return .success(context)
    }

    /// OpenSSL's latest error in words, or "".
    static func lastError() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
