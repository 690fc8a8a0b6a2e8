import CMosquitto
import MQTT
import Transport

extension Client {
    /// Connects to `address` from the next attempt on (a cluster's next node, `broker.hosts`):
    /// `mosquitto_connect_bind_async` reads the host and port at each attempt; with TLS, the
    /// context that checks the broker's certificate against this host's name
    /// (`MOSQ_OPT_SSL_CTX`; `applyTLS` releases libmosquitto's reference to the one it had).
    /// Between attempts.
    package func move(to address: BrokerAddress) throws(ClientSetupError) {
        options.host = address.host
        options.port = address.port
        guard let tls = options.libraryTLS else { return }
        try applyTLS(tls) { option, rc throws(ClientSetupError) in
            do throws(MosquittoError) { try check(rc) } catch { throw ClientSetupError(option: option, error: error) }
        }
    }
}
