import MQTT
import Scenario

extension ClientOptions.TLS {
    /// The TLS a scenario's `tls` mapping asks for (`broker.tls`, `verify.tls`).
    init(_ settings: TLSSettings) {
        self.init(caFile: settings.ca, certificateFile: settings.certificate, keyFile: settings.key, insecure: settings.insecure)
    }
}
