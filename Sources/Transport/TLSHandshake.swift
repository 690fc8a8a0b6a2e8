import COpenSSL

/// The state of a TLS handshake that another library runs (libmosquitto's, for mqtts://).
package enum TLSHandshake {
    /// `SSL_is_init_finished`: whether the handshake on `ssl` (an `SSL *`) has finished.
    package static func isFinished(on ssl: UnsafeMutableRawPointer) -> Bool {
        SSL_is_init_finished(OpaquePointer(ssl)) == 1
    }
}
