import CMosquitto
import Reactor
import Transport

/// When libmosquitto's TLS handshake finished, for the connection timings. Asked after each
/// call that may take the handshake on (`handshakeStep`: the connect, and every read while a
/// CONNACK is awaited over TLS), it is exact to the event the loop saw, and costs a flag read
/// on the `SSL` until it is done and nothing after. An info callback on the `SSL_CTX` would
/// fire within the same call, but for every state change of every connection sharing the
/// context, and would have to find the client from the `SSL`.
extension Client {
    func noteWhetherHandshakeFinished() {
        guard awaitsConnack, tlsFinishedAt == nil, let ssl = mosquitto_ssl_get(handle) else { return }
        if TLSHandshake.isFinished(on: ssl) { tlsFinishedAt = MonotonicClock.now() }
    }
}
