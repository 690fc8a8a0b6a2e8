import Logging
import Reactor

/// A bridge whose libmosquitto side closed: what libmosquitto sent still goes to the broker, then
/// a close frame (over a WebSocket) and a FIN, until the broker closes too or `drainTime` has
/// passed (`draining`).
extension BrokerBridge {
    /// libmosquitto closed its connection (`why`): nothing more comes from it, and what it sent
    /// goes on.
    func beginDraining(_ why: String) {
        debug("\(why): what it sent goes to the broker" + (handshake == nil ? ", then a FIN" : ", then a close frame"))
        phase = .draining
        local?.close(loop: loop)
        local = nil
        towardLocal = []
        drainTimer.schedule(at: MonotonicClock.now() &+ MonotonicClock.nanoseconds(Self.drainTime))
        flushTowardBroker()
    }

    /// Everything libmosquitto sent has been written: the close frame, queued only now so that
    /// libwslay (which sends control frames first) does not put it before them, and then a FIN.
    func finishDraining(_ link: BrokerLink) {
        guard framer.queuedBytes == 0, framer.outbound.isEmpty, !shutDown else { return }
        if !framer.closeSent {
            framer.close(code: 1000)
            return flushTowardBroker()
        }
        shutDown = true
        link.shutdownWrite()
    }

    /// What the broker sends while the bridge drains has no one to go to; its end of the
    /// stream ends the drain.
    func drainBroker() {
        guard let link else { return }
        switch readBroker(link, { _ in }) {
        case .bytes, .wouldBlock: break
        case .closed:
            debug("the broker closed its side: drained")
            close()
        case .failed(let reason):
            debug("the drain ended: \(reason)")
            close()
        }
    }
}

extension BrokerBridge: TimerTarget {
    /// The drain took longer than the broker allows: give up on the rest.
    package func timerFired(_ timer: Timer, now: UInt64) {
        debug("the broker did not close within \(BrokerBridge.drainTime) of the drain: given up")
        close()
    }
}
