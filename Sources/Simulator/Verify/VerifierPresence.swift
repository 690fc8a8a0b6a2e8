import MQTT
import Synchronization

/// Whether a subscriber connection of the verifier is subscribed now, and on which host of a
/// cluster (`broker.hosts`), as the devices whose topics it watches see it when they publish:
/// what they publish while it is not (between a loss and the SUBACK after it) cannot reach it,
/// nor what they publish to another host of brokers that share nothing; both are counted apart
/// from what the broker lost (`VerifySummary.missedWhileAway`, `.unwatched`). Written on the
/// subscriber's loop, read on the devices'.
final class VerifierPresence: Sendable {
    /// The host it is subscribed on (its place in `broker.hosts`, 0 for one broker), -1 while
    /// it is not subscribed.
    private let host = Atomic<Int>(-1)

    var isListening: Bool { host.load(ordering: .relaxed) >= 0 }

    /// Whether it hears what a connection on host `index` publishes now; `nil` when it hears
    /// nothing, not subscribed.
    func hears(host index: Int) -> Bool? {
        let host = self.host.load(ordering: .relaxed)
        return host < 0 ? nil : host == index
    }

    /// Subscribed on host `index`, or not (`nil`).
    func set(listeningOn index: Int?) {
        host.store(index ?? -1, ordering: .relaxed)
    }

    /// The place of the host `options` connect to now in their `broker.hosts`; 0 for one broker.
    static func host(of options: ClientOptions) -> Int {
        options.hosts.firstIndex(of: BrokerAddress(host: options.host, port: options.port)) ?? 0
    }
}
