/// A connection's TLS: what a scenario's `tls` mapping says (`broker.tls`, `verify.tls`; the
/// fields are named as its keys), and what a client sets up from it, libmosquitto's or the
/// WebSocket bridge's (`TLSContexts` in Transport).
package struct TLSSettings: Sendable, Hashable {
    /// CA certificate file, resolved relative to the scenario file; without one, the system's
    /// trusted certificates.
    package var ca: String?
    /// Client certificate and key files, for brokers that require them.
    package var certificate: String?
    package var key: String?
    /// Accept any certificate, unverified: for self-signed test brokers.
    package var insecure: Bool
    /// The protocols the ClientHello offers by ALPN, in order (AWS IoT Core's `x-amzn-mqtt-ca`
    /// on port 443); none, no ALPN extension. Each 1 to 255 bytes.
    package var alpn: [String]

    package init(ca: String? = nil, certificate: String? = nil, key: String? = nil, insecure: Bool = false, alpn: [String] = []) {
        self.ca = ca
        self.certificate = certificate
        self.key = key
        self.insecure = insecure
        self.alpn = alpn
    }
}
