import MQTT
import Transport

/// Who a connection is on the broker, as `sample` and `--dry-run` show it: its client id, user
/// name and certificate, never a password, token or key.
package enum ConnectionIdentity {
    /// `client id thing-7, user thing-7 with a password, certificate CN=thing-7 (certs/thing-7.pem)`,
    /// or nil for an anonymous connection without a certificate. Reads the certificate.
    package static func text(of options: ClientOptions) -> String? {
        guard options.username != nil || options.tls?.certificate != nil else { return nil }
        var parts = [options.clientID.map { "client id \($0)" } ?? "a client id libmosquitto makes"]
        if let username = options.username { parts.append("user \(username)" + (options.password == nil ? "" : " with a password")) }
        if let certificate = options.tls?.certificate {
            let subject = TLSFiles.subject(ofCertificateAt: certificate)
            parts.append("certificate " + (subject.map { "\($0) (\(certificate))" } ?? certificate))
        }
        return parts.joined(separator: ", ")
    }
}
