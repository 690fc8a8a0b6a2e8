package struct TLSSettings: Sendable, Equatable {
    /// CA certificate file, resolved relative to the scenario file; without one, the system's
    /// trusted certificates.
    package var ca: String?
    /// Client certificate and key files, for brokers that require them.
    package var certificate: String?
    package var key: String?
    /// Accept any certificate, unverified: for self-signed test brokers.
    package var insecure: Bool

    package init(ca: String? = nil, certificate: String? = nil, key: String? = nil, insecure: Bool = false) {
        self.ca = ca
        self.certificate = certificate
        self.key = key
        self.insecure = insecure
    }
}
