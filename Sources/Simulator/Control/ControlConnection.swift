import FoundationEssentials
import MQTT
import Mosquitto
import Reactor
import Scenario

/// The fleet's control topic (`control: { topic: … }`), for dashboards that speak only MQTT: a
/// connection of its own, brought up and down by its `ConnectionDriver`, that subscribes to the
/// topic after every CONNACK and carries out what arrives, `{"group": "NAME", "command":
/// "pause"}` or `"resume"`, as `POST /api/groups/NAME/…` does. Confined to its loop.
final class ControlConnection: Session {
    /// A command as it arrives on the topic.
    /// `{"group": NAME, "command": VERB}`, with the command's arguments beside them.
    struct Message: Decodable {
        var group: String
        var command: String
    }

    let topic: String
    let client: Client
    let driver: ConnectionDriver
    private var subscriptions: Subscriptions
    private let loop: EventLoop
    private let logger: Logger
    /// Carries out a command: the group's connection count, or why not.
    private let carryOut: @Sendable (_ command: GroupCommand, _ group: String) throws(GroupCommandError) -> Int
    private(set) var finished = false

    init(
        topic: String, options: ClientOptions, reconnect: ReconnectSettings, loop: EventLoop, logger: Logger,
        carryOut: @escaping @Sendable (_ command: GroupCommand, _ group: String) throws(GroupCommandError) -> Int
    ) throws {
        self.topic = topic
        self.loop = loop
        self.logger = logger
        self.carryOut = carryOut
        subscriptions = Subscriptions([topic], qos: .atLeastOnce)
        client = try Client(options: options)
        driver = ConnectionDriver(
            client: client, reconnect: reconnect, connackTimeout: Defaults.connackTimeout, watchesSilence: true, loop: loop)
        wire()
    }

    func open() {
        open(on: loop, at: MonotonicClock.now())
    }

    func stop() {
        driver.stop()
    }

    /// What `payload` asks, done, or why not, in words for the log.
    func handle(_ payload: [UInt8]) {
        guard let message = try? JSONDecoder().decode(Message.self, from: Data(payload)),
            let arguments = try? JSONDecoder().decode(GroupCommand.Arguments.self, from: Data(payload))
        else {
            logger.warning(
                "control: a message on '\(topic)' that is not {\"group\": NAME, \"command\": \"pause\", \"resume\", \"rate\" or \"scale\"}: "
                    + "'\(String(decoding: payload.prefix(200), as: UTF8.self))'")
            return
        }
        do throws(GroupCommandError) {
            _ = try carryOut(try GroupCommand.parse(message.command, arguments), message.group)
        } catch {
            logger.warning("control: \(message.command) of '\(message.group)' from '\(topic)': \(error.message)")
        }
    }
}

extension ControlConnection {
    func driverDidConnect(firstTime: Bool) {
        let problems = subscriptions.subscribe(with: client)
        for problem in problems { logger.warning("control: " + problem) }
        if firstTime, problems.isEmpty { logger.info("control: listening on '\(topic)'") }
    }

    func driverDidLoseConnection(reason: String) {
        logger.warning("control: \(reason)")
    }

    func driverAttemptFailed(_ failure: AttemptFailure) {}
    func driverWillRetry(after delay: Double) {}

    func driverDidFinish() {
        finished = true
    }
}

extension ControlConnection {
    func client(_ client: Client, didSubscribe messageID: Int32, grantedQoS: [Int32]) {
        if let refusal = subscriptions.acknowledged(messageID, grantedQoS: grantedQoS)?.refusal { logger.warning("control: " + refusal) }
    }

    func client(_ client: Client, didReceive message: ReceivedMessage) {
        // A retained command would be carried out again at every reconnection, undoing what
        // came after it: commands are for when they are sent.
        guard !message.retain else {
            logger.warning("control: a retained message on '\(topic)' ignored: send commands without retain")
            return
        }
        handle(Array(message.payload))
    }
}
