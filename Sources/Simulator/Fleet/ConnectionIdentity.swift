import MQTT
import Scenario
import Transport

/// Who a connection is on the broker, as `sample` and `--dry-run` show it: its client id, user
/// name and certificate, never a password, token or key.
package enum ConnectionIdentity {
    /// `client id thing-7, user thing-7 with a password, certificate CN=thing-7 (certs/thing-7.pem)`,
    /// or nil for an anonymous connection without a certificate. A user name is named, from a
    /// credentials file's `username` column too, unless it holds a credentials file's `token`,
    /// a secret (ThingsBoard's access token is the user name). Reads the certificate.
    package static func text(of connection: ConnectionPlan, in plan: FleetPlan) -> String? {
        let options = connection.options
        guard options.username != nil || options.tls?.certificate != nil else { return nil }
        let broker = plan.scenarios.first { $0.groups.contains { $0.name == plan.groups[connection.group] } }?.broker
        var parts = [options.clientID.map { "client id \($0)" } ?? "a client id libmosquitto makes"]
        if let username = options.username {
            // Any device's token, not only this one's: a user name that might hold a secret is not shown.
            let holdsToken = broker?.credentials?.rows.values.contains { $0[.token].map(username.contains) == true } == true
            parts.append(
                (holdsToken ? "a token from \(broker?.credentials?.path ?? "the credentials file") as its user" : "user \(username)")
                    + (options.password == nil ? "" : " with a password"))
        }
        if let certificate = options.tls?.certificate {
            let subject = TLSFiles.subject(ofCertificateAt: certificate)
            parts.append("certificate " + (subject.map { "\($0) (\(certificate))" } ?? certificate))
        }
        return parts.joined(separator: ", ")
    }
}
