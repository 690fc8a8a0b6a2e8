import MQTT
import Mosquitto
import Reactor
import Scenario

/// The recorder's subscriber: one connection, brought up and down by its `ConnectionDriver`
/// (reconnects with backoff, a CONNACK timeout, a silent broker judged lost), that subscribes to
/// the filters after every CONNACK (its session is clean) and hands what arrives to its
/// recorder's keeper. Confined to the recorder's loop.
final class RecorderConnection: Session {
    let client: Client
    let driver: ConnectionDriver
    let loop: EventLoop
    unowned(unsafe) var keeper: RecordKeeper!
    private var subscriptions: Subscriptions
    /// All the filters were granted on some connection: a later grant is a resubscription.
    private(set) var everSubscribed = false
    /// The current connection's filters are all granted.
    private(set) var isSubscribed = false

    init(options: ClientOptions, filters: [String], qos: QoS, connackTimeout: Duration, loop: EventLoop) throws {
        client = try Client(options: options)
        self.loop = loop
        subscriptions = Subscriptions(filters, qos: qos)
        // A broker that is away a while is tried again soon: the recording has a gap meanwhile.
        driver = ConnectionDriver(
            client: client, reconnect: ReconnectSettings(initial: .seconds(1), max: .seconds(8)), connackTimeout: connackTimeout,
            watchesSilence: true, loop: loop)
        wire()
    }

    func open() {
        open(on: loop, at: MonotonicClock.now())
    }

    func stop() {
        driver.stop()
    }
}

extension RecorderConnection {
    func driverDidConnect(firstTime: Bool) {
        // MQTT 5: live messages keep their publisher's retain flag; after a loss, the retained
        // messages are not sent again (the first subscription had them).
        let options = SubscriptionOptions(retainAsPublished: true, retainHandling: everSubscribed ? .never : .atSubscribe)
        let problems = subscriptions.subscribe(with: client, options: options)
        if let problem = problems.first { keeper.refused(problem) }
    }

    func driverDidLoseConnection(reason: String) {
        isSubscribed = false
        keeper.connectionLost(reason: reason)
    }

    func driverAttemptFailed(_ failure: AttemptFailure) {
        keeper.attemptFailed(failure, speaksMQTT5: client.options.protocolVersion == .v5)
    }

    func driverWillRetry(after delay: Double) {}

    func driverDidFinish() {
        keeper.connectionFinished()
    }

    func client(_ client: Client, didSubscribe messageID: Int32, grantedQoS: [Int32]) {
        guard let suback = subscriptions.acknowledged(messageID, grantedQoS: grantedQoS) else { return }
        if let refusal = suback.refusal {
            keeper.refused(refusal)
            return
        }
        guard suback.isLast else { return }
        isSubscribed = true
        let again = everSubscribed
        everSubscribed = true
        keeper.subscribed(again: again)
    }

    func client(_ client: Client, didReceive message: ReceivedMessage) {
        keeper.receive(message)
    }
}
