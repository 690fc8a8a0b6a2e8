import MQTT
import Mosquitto
import Reactor

/// One member of a subscriber group: a connection of its own, brought up and down by its
/// `ConnectionDriver` like a device's, that subscribes to the group's filters after every
/// CONNACK and counts what arrives into its group's tally on this loop. Confined to its loop.
final class SubscriberConnection: Session {
    let client: Client
    let loop: EventLoop
    /// The group's, as the run keeps it (`Subscribers.groups`).
    let group: Int
    let tally: SubscriberTally
    /// The member's table in the tally.
    let slot: Int
    unowned(unsafe) var subscribers: Subscribers!
    private var subscriptions: Subscriptions
    let driver: ConnectionDriver
    private let startOffset: Double
    /// Every message delivered, copies and messages of no topic of the fleet's included.
    private(set) var received = 0
    /// All its subscriptions were acknowledged at least once.
    private(set) var everSubscribed = false
    private var wasFinished = false

    init(
        plan: SubscriberGroupPlan, member: SubscriberGroupPlan.Member, group: Int, tally: SubscriberTally, connackTimeout: Duration,
        loop: EventLoop
    ) throws {
        client = try Client(options: member.options)
        self.loop = loop
        self.group = group
        self.tally = tally
        slot = tally.slot()
        startOffset = member.startOffset
        subscriptions = Subscriptions(filters: plan.subscriptions)
        driver = ConnectionDriver(
            client: client, reconnect: plan.reconnect, connackTimeout: connackTimeout, watchesSilence: true, loop: loop)
        wire()
    }

    /// Opens the connection at its place in the ramp after `start`. Loop thread only.
    func open(start: UInt64) {
        open(on: loop, at: start &+ MonotonicClock.nanoseconds(startOffset))
    }

    func stop() {
        driver.stop()
    }
}

extension SubscriberConnection {
    func driverDidConnect(firstTime: Bool) {
        subscribers.connectionsUp.add(1, ordering: .relaxed)
        subscribers.everConnected.store(true, ordering: .relaxed)
        for problem in subscriptions.subscribe(with: client) { subscribers.warn(group: group, problem) }
    }

    func driverDidLoseConnection(reason: String) {
        subscribers.connectionsUp.subtract(1, ordering: .relaxed)
        subscribers.warn(group: group, reason + "; it subscribes again once back")
    }

    func driverAttemptFailed(_ failure: AttemptFailure) {
        subscribers.warn(group: group, failure.reason)
    }

    func driverWillRetry(after delay: Double) {}

    func driverWillDisconnect() -> ReasonCode {
        subscribers.connectionsUp.subtract(1, ordering: .relaxed)
        return .success
    }

    func driverDidFinish() {
        guard !wasFinished else { return }
        wasFinished = true
        subscribers.finishedConnections.add(1, ordering: .relaxed)
    }
}

extension SubscriberConnection {
    func client(_ client: Client, didSubscribe messageID: Int32, grantedQoS: [Int32]) {
        guard let suback = subscriptions.acknowledged(messageID, grantedQoS: grantedQoS) else { return }
        if let refusal = suback.refusal {
            subscribers.warn(group: group, refusal)
            return
        }
        guard suback.isLast, !everSubscribed else { return }
        everSubscribed = true
        subscribers.subscribedConnections.add(1, ordering: .relaxed)
    }

    func client(_ client: Client, didReceive message: ReceivedMessage) {
        received += 1
        _ = tally.receive(message, slot: slot)
        subscribers.receivedCount.add(1, ordering: .relaxed)
    }
}
