import COpenSSL
import Glibc
import MQTT
import Reactor

/// A bridge's byte stream to the broker: a non-blocking TCP connection, with OpenSSL over it for
/// wss:// (SNI and host-name verification unless `insecure`).
final class BrokerLink {
    enum Result {
        case bytes(Int)
        case wouldBlock
        /// The broker closed the stream (EOF, or TLS close_notify).
        case closed
        case failed(String)
    }

    enum Handshake {
        case done
        case wouldBlock
        case failed(String)
    }

    private let tcp: TCPConnection
    /// `SSL *`, for wss://.
    private var ssl: OpaquePointer?
    /// The TLS handshake waits for room to write, not for bytes to read.
    private(set) var handshakeWantsWrite = false
    /// A TLS read waits for room to write: read again when writable.
    private(set) var readWaitsForWrite = false
    /// A TLS write waits for bytes to read: write again when readable.
    private(set) var writeWaitsForRead = false

    var descriptor: Int32 { tcp.descriptor }

    init(host: String, port: Int32, tls: ClientOptions.TLS?) throws(TransportError) {
        tcp = try TCPConnection(host: host, port: port)
        guard let tls else { return }
        do throws(TransportError) {
            let context = try TLSContexts.context(for: tls)
            guard let ssl = SSL_new(context) else { throw TransportError("TLS: \(TLSContexts.lastError())") }
            self.ssl = ssl
            SSL_set_fd(ssl, tcp.descriptor)
            // SNI and verification of the certificate's name, for a host name; an address is
            // checked as an address, and sent without SNI (RFC 6066 forbids it).
            var address = in6_addr()
            let isAddress = inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
            if !isAddress { _ = devsim_ssl_set_tlsext_host_name(ssl, host) }
            if !tls.insecure {
                let parameters = SSL_get0_param(ssl)
                if isAddress { X509_VERIFY_PARAM_set1_ip_asc(parameters, host) } else { SSL_set1_host(ssl, host) }
            }
        } catch {
            Glibc.close(tcp.descriptor)
            throw error
        }
    }

    func finishConnect() -> TransportError? { tcp.finishConnect() }

    /// Advances the TLS handshake.
    func handshake(serverName: String) -> Handshake {
        guard let ssl else { return .done }
        ERR_clear_error()
        let rc = SSL_connect(ssl)
        if rc == 1 { return .done }
        switch SSL_get_error(ssl, rc) {
        case SSL_ERROR_WANT_READ:
            handshakeWantsWrite = false
            return .wouldBlock
        case SSL_ERROR_WANT_WRITE:
            handshakeWantsWrite = true
            return .wouldBlock
        default:
            let verify = SSL_get_verify_result(ssl)
            if verify != X509_V_OK {
                let why = String(cString: X509_verify_cert_error_string(verify))
                return .failed(
                    "TLS: the broker's certificate is not trusted: \(why) (give its CA in tls.ca, or insecure: true for a test broker)")
            }
            let detail = TLSContexts.lastError()
            return .failed("TLS handshake with '\(serverName)' failed: " + (detail.isEmpty ? "the broker closed the connection" : detail))
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Result {
        guard let ssl else {
            let count = Glibc.read(tcp.descriptor, buffer.baseAddress, buffer.count)
            if count > 0 { return .bytes(count) }
            if count == 0 { return .closed }
            return errno == EAGAIN || errno == EINTR ? .wouldBlock : .failed(String(cString: strerror(errno)))
        }
        ERR_clear_error()
        errno = 0
        readWaitsForWrite = false
        let count = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
        if count > 0 { return .bytes(Int(count)) }
        return tlsResult(count, wantWrite: { readWaitsForWrite = true }, wantRead: {})
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Result {
        guard let ssl else {
            let count = Glibc.write(tcp.descriptor, bytes.baseAddress, bytes.count)
            if count >= 0 { return .bytes(count) }
            return errno == EAGAIN || errno == EINTR ? .wouldBlock : .failed(String(cString: strerror(errno)))
        }
        ERR_clear_error()
        errno = 0
        writeWaitsForRead = false
        let count = SSL_write(ssl, bytes.baseAddress, Int32(bytes.count))
        if count > 0 { return .bytes(Int(count)) }
        return tlsResult(count, wantWrite: {}, wantRead: { writeWaitsForRead = true })
    }

    private func tlsResult(_ rc: Int32, wantWrite: () -> Void, wantRead: () -> Void) -> Result {
        let code = SSL_get_error(ssl, rc)
        switch code {
        case SSL_ERROR_WANT_READ:
            wantRead()
            return .wouldBlock
        case SSL_ERROR_WANT_WRITE:
            wantWrite()
            return .wouldBlock
        case SSL_ERROR_ZERO_RETURN:
            return .closed
        case SSL_ERROR_SYSCALL where errno == 0:
            return .closed
        case SSL_ERROR_SYSCALL:
            return .failed(String(cString: strerror(errno)))
        default:
            return .failed("TLS: " + TLSContexts.lastError())
        }
    }

    /// No more bytes toward the broker: TLS's close_notify, then a FIN after what is queued.
    func shutdownWrite() {
        if let ssl { _ = SSL_shutdown(ssl) }
        _ = Glibc.shutdown(tcp.descriptor, Int32(SHUT_WR))
    }

    func close() {
        if let ssl { SSL_free(ssl) }
        ssl = nil
        Glibc.close(tcp.descriptor)
    }
}

/// One `SSL_CTX` per set of TLS settings for the whole process, made at first use: the CA file
/// is read once, not at every connection. OpenSSL's contexts may be shared by threads once set up.
enum TLSContexts {
    private static let contexts = Locked<[ClientOptions.TLS: UnsafeSendable]>([:])

    /// An `SSL_CTX *`, unchanged after it is made.
    private struct UnsafeSendable: @unchecked Sendable {
        let context: OpaquePointer
    }

    static func context(for settings: ClientOptions.TLS) throws(TransportError) -> OpaquePointer {
        let result: Swift.Result<OpaquePointer, TransportError> = contexts.withLock { contexts in
            if let made = contexts[settings] { return .success(made.context) }
            switch make(settings) {
            case .success(let context):
                contexts[settings] = UnsafeSendable(context: context)
                return .success(context)
            case .failure(let error):
                return .failure(error)
            }
        }
        return try result.get()
    }

    private static func make(_ settings: ClientOptions.TLS) -> Swift.Result<OpaquePointer, TransportError> {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else { return .failure(TransportError("TLS: \(lastError())")) }
        func failure(_ what: String) -> Swift.Result<OpaquePointer, TransportError> {
            let detail = lastError()
            SSL_CTX_free(context)
            return .failure(TransportError("TLS: \(what)" + (detail.isEmpty ? "" : ": " + detail)))
        }
        if let ca = settings.caFile {
            guard SSL_CTX_load_verify_locations(context, ca, nil) == 1 else { return failure("cannot read the CA file '\(ca)'") }
        } else if SSL_CTX_set_default_verify_paths(context) != 1 {
            return failure("cannot read the system's trusted certificates")
        }
        if let certificate = settings.certificateFile, let key = settings.keyFile {
            guard SSL_CTX_use_certificate_chain_file(context, certificate) == 1 else {
                return failure("cannot read the client certificate '\(certificate)'")
            }
            guard SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) == 1 else { return failure("cannot read the key '\(key)'") }
            guard SSL_CTX_check_private_key(context) == 1 else { return failure("the key '\(key)' is not the certificate's") }
        }
        SSL_CTX_set_verify(context, settings.insecure ? SSL_VERIFY_NONE : SSL_VERIFY_PEER, nil)
        _ = devsim_ssl_ctx_set_retry_modes(context)
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
