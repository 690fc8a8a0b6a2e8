import CMosquitto
import Glibc
import Reactor
import Transport

/// libmosquitto's TLS handshake, which runs within its calls: what each call that may take it
/// a step on met (a refusal of a certificate, the broker's or devsim's), and when it finished,
/// for the connection timings.
extension Client {
    /// Runs `step`, a call in which libmosquitto may take the TLS handshake a step on, and keeps
    /// the refusal it met (`CertificateVerification`): of the broker's certificate, or the
    /// broker's alert refusing devsim's.
    func handshakeStep<Result>(_ step: () -> Result) -> Result {
        guard awaitsConnack, options.libraryTLS != nil else { return step() }
        let (result, refusal, finished) = CertificateVerification.watching(certificate: options.libraryTLS?.certificate, step)
        if let refusal { certificateRefusal = refusal }
        // A handshake that finished in a step that then failed: libmosquitto has freed its `SSL`.
        if finished, tlsFinishedAt == nil { tlsFinishedAt = MonotonicClock.now() }
        // A step may make the TCP connection and finish the handshake both (a connect call the
        // thread was descheduled in): seen in the order they happened. The `errno` the step
        // left is its caller's (`connectErrno`), whatever the looking sets.
        let stepErrno = errno
        noteWhetherReachedBroker()
        noteWhetherHandshakeFinished()
        errno = stepErrno
        return result
    }

    /// Asked after each call that may take the handshake on (`handshakeStep`: the connect, and
    /// every read while a CONNACK is awaited over TLS), it is exact to the event the loop saw,
    /// and costs a flag read on the `SSL` until it is done and nothing after.
    func noteWhetherHandshakeFinished() {
        guard awaitsConnack, tlsFinishedAt == nil, let ssl = mosquitto_ssl_get(handle) else { return }
        if TLSHandshake.isFinished(on: ssl) { tlsFinishedAt = MonotonicClock.now() }
    }
}
