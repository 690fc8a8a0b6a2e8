import Mosquitto
import Reactor

/// What every connection of a run is (a device connection, a subscriber, the verifier, the
/// control topic's): a client, and the driver that brings it up and down (reconnects, backoff,
/// pauses). The client's CONNACKs and closes go to the driver, and the rest of what the two
/// report to the connection. Confined to its loop.
protocol Session: ClientDelegate, ConnectionDriverDelegate {
    var client: Client { get }
    var driver: ConnectionDriver { get }
}

extension Session {
    /// Makes the connection hear its client and its driver: once, at the end of its `init`.
    func wire() {
        client.delegate = self
        driver.delegate = self
    }

    /// Joins `loop`, whose selector watches the client from now on, and connects at `deadline`.
    func open(on loop: EventLoop, at deadline: UInt64) {
        client.attach(to: loop)
        driver.open(at: deadline)
    }

    func client(_ client: Client, didReceiveConnack code: ConnackCode) {
        driver.connackArrived(code)
    }

    func client(_ client: Client, didDisconnect error: MosquittoError?) {
        driver.closed(error)
    }

    /// Only a connection that publishes hears of its acknowledgements.
    func client(_ client: Client, didPublish messageID: Int32, reasonCode: ReasonCode) {}
}
