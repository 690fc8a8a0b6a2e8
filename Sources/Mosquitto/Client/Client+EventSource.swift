import CMosquitto
import Glibc
import Reactor
import Transport

/// How a `Client` is driven by its event loop: `mosquitto_loop_read` when its socket is readable,
/// `mosquitto_loop_write` when writable and wanted, `mosquitto_loop_misc` about once a second.
/// Each tells the delegate when a backed-up socket drained, whichever call drained it: a read
/// that answers, or a keepalive PINGREQ, writes libmosquitto's backlog ahead of it.
extension Client: EventSource {
    /// Joins `loop`, which watches the client's socket from now on, across reconnections, and
    /// whose logger hears what the client sees (`logLibraryLines`). Loop thread only.
    package func attach(to loop: EventLoop) {
        precondition(self.loop == nil, "a Client joins one loop, once")
        self.loop = loop
        registration = loop.register(self)
        logLibraryLines()
    }

    /// Leaves its loop, which watches its socket no more (`EventLoop.deregister`): the last
    /// step before the client can go away, since the loop holds its sources unretained. Loop
    /// thread only, and not from within one of the client's own callbacks.
    package func leaveLoop() {
        if let registration { loop?.deregister(registration) }
        registration = nil
    }

    package var descriptor: Int32 { isDetached ? -1 : socket }

    package func readable(hungUp: Bool) {
        let backlog = Backlog(self)
        noteWhetherReachedBroker()
        loopRead(hungUp: hungUp)
        backlog.tellIfDrained()
    }

    package func writable() {
        let backlog = Backlog(self)
        noteWhetherReachedBroker()
        let reported = disconnectsReported
        // A TLS handshake that waits for room to write (a TCP connect still under way when it
        // began) advances in `mosquitto_loop_read` only: `mosquitto_loop_write` leaves it be,
        // and its want-write would hold EPOLLOUT up, spinning, until the CONNACK timeout.
        if awaitsConnack, options.libraryTLS != nil { loopRead() }
        // A failure is reported through `didDisconnect`.
        if disconnectsReported == reported, !isDetached { _ = mosquitto_loop_write(handle, 1) }
        backlog.tellIfDrained()
    }

    /// Keepalive PINGREQs, and the disconnect of a broker silent for twice the keepalive:
    /// `mosquitto_loop_misc`.
    package func housekeeping(now: UInt64) {
        guard socket >= 0, !isDetached else { return }
        let backlog = Backlog(self)
        _ = mosquitto_loop_misc(handle)
        backlog.tellIfDrained()
    }

    package func registrationFailed(_ error: SystemError) {
        abandon(reporting: MosquittoError(rawValue: MosquittoError.errno.rawValue, systemErrno: error.errno))
    }

    /// Whether the socket was backed up before a call, to tell the delegate if the call drained
    /// it on the same connection; and the loop, that the wish to write may have changed.
    private struct Backlog {
        unowned(unsafe) let client: Client
        let wasBackedUp: Bool
        let disconnects: Int

        init(_ client: Client) {
            self.client = client
            wasBackedUp = client.wantsWrite
            disconnects = client.disconnectsReported
        }

        func tellIfDrained() {
            if wasBackedUp, client.disconnectsReported == disconnects, !client.wantsWrite {
                client.delegate?.clientCanWrite(client)
            }
            client.registrationMayChange()
        }
    }

    /// The wish to write, or the socket, may have changed: the loop looks again before it waits.
    @inline(__always)
    func registrationMayChange() {
        if let registration { loop?.update(registration) }
    }

    /// libmosquitto closed the socket or is about to (a new attempt, a reset): its number may be
    /// someone else's by the time the loop looks.
    func socketClosed() {
        if let registration { loop?.descriptorClosed(registration) }
    }

    /// `mosquitto_loop_read`, with every failure reported through `didDisconnect`, also the two
    /// that libmosquitto 2.0.11 leaves unreported while a TLS handshake is under way: a handshake
    /// error closes the socket and returns `MOSQ_ERR_TLS` without `on_disconnect`; a socket whose
    /// TCP connect failed (refused, reset) returns `SSL_ERROR_SYSCALL`, which it takes for "try
    /// again" forever, keeping the dead socket, a busy loop under level-triggered epoll.
    /// `hungUp` says the socket reported `EPOLLHUP`/`EPOLLERR`: once read to its end, libmosquitto
    /// must have closed it, or it never will.
    func loopRead(hungUp: Bool = false) {
        let socket = self.socket
        let reported = disconnectsReported
        let rc = readOnce()
        guard disconnectsReported == reported, !isDetached else { return }
        if rc.code != 0 {
            detach(reporting: MosquittoError(rawValue: rc.code, systemErrno: rc.errno))
        } else if hungUp, awaitsConnack, options.libraryTLS != nil, self.socket == socket {
            // Only a handshake leaves a dead socket unreported: otherwise libmosquitto reads the
            // end-of-file or the error itself, and its reason is the better one.
            let failure = [rc.errno, connectErrno].first(where: Client.failsAConnection)
            readToTheEnd(
                of: socket,
                failure: failure.map { MosquittoError(rawValue: MosquittoError.errno.rawValue, systemErrno: $0) }
                    ?? .connectionLost)
        }
    }

    /// `mosquitto_loop_read`; during a TLS handshake, watching for a refusal of the broker's
    /// certificate, which the call returns as `MOSQ_ERR_TLS` alone.
    private func readOnce() -> (code: Int32, errno: Int32) {
        lastHeard = MonotonicClock.now()
        errno = 0
        return handshakeStep { (mosquitto_loop_read(handle, 1), errno) }
    }

    /// Reads what is left on `socket` (a packet per call) and its end-of-file, through which
    /// libmosquitto closes it and reports `didDisconnect`; should it still hold the socket after
    /// that, it never lets go: the client is detached and `failure` reported.
    func readToTheEnd(of socket: Int32, failure: MosquittoError) {
        let reported = disconnectsReported
        for _ in 0..<64 where self.socket == socket && disconnectsReported == reported && !isDetached {
            let rc = readOnce()
            if rc.code != 0, disconnectsReported == reported {
                detach(reporting: MosquittoError(rawValue: rc.code, systemErrno: rc.errno))
            }
        }
        // Bytes still waiting are read on the loop's next turn; the socket is not dead yet.
        guard self.socket == socket, disconnectsReported == reported, !isDetached, Client.bytesReadable(socket) == 0 else { return }
        detach(reporting: failure)
    }

    /// Bytes the kernel holds for reading on `socket`: `ioctl(FIONREAD)`.
    private static func bytesReadable(_ socket: Int32) -> Int32 {
        var count: Int32 = 0
        return ioctl(socket, UInt(FIONREAD), &count) == 0 ? count : 0
    }

    /// Reports a failure libmosquitto did not; a socket it still holds is no longer watched, one
    /// it closed itself is forgotten.
    private func detach(reporting error: MosquittoError) {
        debug(
            "libmosquitto gave up on the connection without reporting it (\(error)): the client reports it"
                + (socket >= 0 ? ", and stops watching the socket libmosquitto keeps open" : ""))
        isDetached = socket >= 0
        if isDetached { registrationMayChange() } else { socketClosed() }
        disconnectsReported += 1
        let reason = abandonedBecause ?? error
        abandonedBecause = nil
        delegate?.client(self, didDisconnect: reason)
    }

    /// `errno` values that say why a TCP connection could not be made or was torn down.
    private static func failsAConnection(_ code: Int32) -> Bool {
        [ECONNREFUSED, ECONNRESET, ECONNABORTED, ETIMEDOUT, EHOSTUNREACH, ENETUNREACH, EHOSTDOWN, ENETDOWN].contains(code)
    }
}
