import COpenSSL
import Glibc
import MQTT
import Reactor

/// A bridge's byte stream to the broker: a non-blocking TCP connection, with OpenSSL over it for
/// wss:// (SNI, and the verification of `TLSContexts`).
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
    /// The client certificate's file it shows the broker, for the words of its refusal.
    private let certificate: String?
    /// Bytes came from the broker: past the point where a refusal of the certificate comes.
    private var hasRead = false
    /// The TLS handshake waits for room to write, not for bytes to read.
    private(set) var handshakeWantsWrite = false
    /// A TLS read waits for room to write: read again when writable.
    private(set) var readWaitsForWrite = false
    /// A TLS write waits for bytes to read: write again when readable.
    private(set) var writeWaitsForRead = false

    var descriptor: Int32 { tcp.descriptor }

    init(host: String, port: Int32, tls: TLSSettings?, bindAddress: String? = nil) throws(TransportError) {
        tcp = try TCPConnection(host: host, port: port, bindAddress: bindAddress)
        certificate = tls?.certificate
        guard let tls else { return }
        do throws(TransportError) {
            let context: TLSContext
            do { context = try TLSContexts.context(for: tls, host: host) } catch { throw TransportError("TLS: \(error.message)") }
            // The `SSL` holds a reference to the context of its own (`SSL_new` takes one,
            // `SSL_free` in `close` lets it go): the cache may drop its own meanwhile, at a reload.
            guard let ssl = SSL_new(context.pointer) else { throw TransportError("TLS: \(TLSContexts.lastError())") }
            self.ssl = ssl
            SSL_set_fd(ssl, tcp.descriptor)
            // SNI for a host name; an address is sent without (RFC 6066 forbids it).
            var address = in6_addr()
            let isAddress = inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
            if !isAddress { _ = devsim_ssl_set_tlsext_host_name(ssl, host) }
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
        let (rc, refusal, _) = CertificateVerification.watching(certificate: certificate) { SSL_connect(ssl) }
        if rc == 1 { return .done }
        switch SSL_get_error(ssl, rc) {
        case SSL_ERROR_WANT_READ:
            handshakeWantsWrite = false
            return .wouldBlock
        case SSL_ERROR_WANT_WRITE:
            handshakeWantsWrite = true
            return .wouldBlock
        default:
            if let refusal { return .failed(refusal) }
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
        // Under TLS 1.3 a broker that refuses the client certificate says so in the first read.
        let (count, refusal, _) =
            hasRead
            ? (SSL_read(ssl, buffer.baseAddress, Int32(buffer.count)), nil, false)
            : CertificateVerification.watching(certificate: certificate) { SSL_read(ssl, buffer.baseAddress, Int32(buffer.count)) }
        if count > 0 {
            hasRead = true
            return .bytes(Int(count))
        }
        if let refusal { return .failed(refusal) }
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
