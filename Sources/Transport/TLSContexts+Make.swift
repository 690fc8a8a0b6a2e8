import COpenSSL
import Glibc
import MQTT

extension TLSContexts {
    /// A context for `key`, the caller's to free. The failures are sentences without "TLS: ",
    /// which whoever reports them puts in front.
    static func make(_ key: Key) -> Swift.Result<OpaquePointer, TransportError> {
        let settings = key.settings
        // Before the context: a store made here is the one shared, which may take ~27 ms (the
        // system's), and its failure is the first to name.
        let store: OpaquePointer
        switch TrustStores.store(for: settings) {
        case .success(let shared): store = shared
        case .failure(let error): return .failure(error)
        }
        defer { X509_STORE_free(store) }
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else { return .failure(TransportError(lastError())) }
        func failure(_ what: String) -> Swift.Result<OpaquePointer, TransportError> {
            let detail = lastError()
            SSL_CTX_free(context)
            return .failure(TransportError(what + (detail.isEmpty ? "" : ": " + detail)))
        }
        // Shared, never written through the context: no `SSL_CTX_load_verify_locations` or
        // `SSL_CTX_set_default_verify_paths` here, which would load into every context's store.
        setStore(store, of: context)
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
            // refusal is seen and named like any other. The context's own parameters, not the
            // shared store's.
            var address = in6_addr()
            let isAddress = inet_pton(AF_INET, key.host, &address) == 1 || inet_pton(AF_INET6, key.host, &address) == 1
            let parameters = SSL_CTX_get0_param(context)
            let named =
                isAddress ? X509_VERIFY_PARAM_set1_ip_asc(parameters, key.host) : X509_VERIFY_PARAM_set1_host(parameters, key.host, 0)
            guard named == 1 else { return failure("cannot verify certificates for '\(key.host)'") }
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER) { passed, store in CertificateVerification.verified(passed, store) }
        }
        // The broker's alerts, whether it verifies devsim's certificate or not: a refusal of
        // it comes as one, after devsim's side of a TLS 1.3 handshake is done.
        SSL_CTX_set_info_callback(context) { _, event, value in CertificateVerification.alerted(event, value) }
        if !settings.alpn.isEmpty {
            guard let wire = ALPN.wire(settings.alpn), setProtocols(wire, of: context) else {
                return failure("cannot offer the ALPN protocols \(settings.alpn)")
            }
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

    /// `SSL_CTX_set1_cert_store`: the context verifies with `store`, of which it takes a
    /// reference (the caller keeps its own).
    private static func setStore(_ store: OpaquePointer, of context: OpaquePointer) {
        SSL_CTX_set1_cert_store(context, store)
    }

    /// `SSL_CTX_set_alpn_protos`, which returns 0 on success (OpenSSL reverses its convention
    /// there): the protocols the ClientHello offers, in wire format (`ALPN.wire`).
    private static func setProtocols(_ wire: [UInt8], of context: OpaquePointer) -> Bool {
        SSL_CTX_set_alpn_protos(context, wire, UInt32(wire.count)) == 0
    }
}
