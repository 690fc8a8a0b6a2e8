import MQTT
import Mosquitto
import Signals
import Reactor

/// What a role does through its connection (`ConnectionRole`): the one outbound path every
/// message takes, subscriptions, the connection's devices, its clock and timers, what its next
/// CONNECT carries, and its planned comings and goings. The run's connection gives it
/// (`DeviceConnection`), and so does the dry run's (`DryRunConnection`), which prints what the
/// roles publish: a role does the same in both. Confined to the connection's loop.
protocol RoleContext: AnyObject {
    /// Monotonic nanoseconds now (a dry run's virtual clock), and the wall clock then.
    var now: UInt64 { get }
    var wallClock: Double { get }
    /// Seconds from the run's start to `time`, as a load profile counts them.
    func secondsIntoRun(_ time: UInt64) -> Double
    /// The instant `seconds` into the run, on the monotonic clock.
    func instant(secondsIntoRun seconds: Double) -> UInt64
    /// Whether devices still tick at `time`: not once the run's ticking is over.
    func isTicking(at time: UInt64) -> Bool

    var isConnected: Bool { get }
    /// Where the connection stands (paused, away, out, reconnecting by plan…).
    var standing: ConnectionStanding { get }
    /// The planned reconnect that the CONNACK under way ends (while the roles hear
    /// `connected`); `nil` after a loss, a pause, or the first connect.
    var connackEndsPlannedReconnect: ConnectionStanding.PlannedReconnect? { get }
    /// Changes where the connection stands, and has its driver make the move the change asks for.
    /// The stages bring the connection in or take it out (`PresenceRole`).
    func stagesTurned(in isIn: Bool)
    @discardableResult
    func changeStanding(_ change: (inout ConnectionStanding) -> ConnectionStanding.Move) -> ConnectionStanding.Move

    /// A message beside the ticks, through the connection's one outbound path (the stamp, the
    /// acknowledgements a DISCONNECT waits for, a refusal said once): whether it was taken.
    @discardableResult
    func publish(_ message: OutboundMessage, payload: UnsafeRawBufferPointer) -> Bool
    /// Subscribes to `filters` for `role` (after every CONNACK: a clean session forgets them);
    /// its SUBACKs come back to it.
    func subscribe(_ filters: [String], qos: QoS, for role: any ConnectionRole)
    /// The will and the password of the connection's next CONNECT.
    func setWill(_ will: Will) throws(ClientSetupError)
    func setPassword(_ password: String) throws(ClientSetupError)

    /// The devices' ticks wait, counted as `paused`, and what the queue holds with them; or go on,
    /// the queue first.
    func holdTelemetry(_ held: Bool)
    /// Device `device`'s ticks wait, counted as `paused`, unmade; or go on.
    func hold(device: Int, _ held: Bool)
    var deviceCount: Int { get }
    /// Device `device`'s time now (seconds into its life).
    func elapsed(of device: Int) -> Double
    /// Carries out a command's changes to device `device`'s fields and rate, all or none.
    func take(_ command: DeviceCommand, device: Int) throws(CommandRejection)
    /// Device `device`'s state now, published on its topics beside its schedule: how many
    /// messages went out.
    @discardableResult
    func sayState(of device: Int, what: String) -> Int
    /// The state `sayState` just made, as one payload: a request's reply.
    func lastStateAsReply(of device: Int) -> [UInt8]

    /// A timer on the connection's clock for `role`, which hears it fire; `nil` where nothing
    /// runs on a clock (the dry run, which shows what goes out at the CONNACK and the ticks).
    func makeTimer(for role: any ConnectionRole) -> RoleTimer?
    /// The group's figures on this loop.
    var counters: Counters { get }
    /// Records a command's time from its arrival to its answer, and a connection's from its
    /// command topics' SUBSCRIBEs to their last SUBACK.
    func recordCommandLatency(_ nanoseconds: UInt64)
    func recordSubscribeLatency(_ nanoseconds: UInt64)
    /// Logs `message` once for the whole run, whichever connection says it.
    func warnOnce(_ message: String, key: String?)
    /// Logs `message` at info level with the connection's client, where the run logs each
    /// connection's comings and goings.
    func logEvent(_ message: String)
    /// Logs a command's `message` with the connection's client: at info level where the run logs
    /// each connection's comings and goings, at debug level in a fleet too big for that.
    func logCommand(_ message: String)
}

extension RoleContext {
    /// `message` with `payload`.
    @discardableResult
    func publish(_ message: OutboundMessage, payload: [UInt8]) -> Bool {
        payload.withUnsafeBytes { publish(message, payload: $0) }
    }

    func warnOnce(_ message: String) { warnOnce(message, key: nil) }
}

/// A message beside the ticks (a state, a discovery config, an availability, a command's answer,
/// a birth or a death), and what it is for ("availability", "discovery", "commands"), in the
/// words of a refusal.
struct OutboundMessage {
    let topic: Topic
    var qos: QoS = .atLeastOnce
    let retain: Bool
    let what: String
    /// The device's MQTT 5 properties, for a state on its own topics.
    var properties: PropertyList? = nil
    /// An MQTT 5 request's correlation data, for its answer on its response topic.
    var correlation: [UInt8]? = nil
    /// It takes the connection's stamp (`MessageStamp`) as the ticks do: a Sparkplug DBIRTH.
    var stamped = false

    init(
        topic: String, qos: QoS = .atLeastOnce, retain: Bool, what: String, correlation: [UInt8]? = nil, stamped: Bool = false
    ) {
        self.topic = Topic(topic)
        self.qos = qos
        self.retain = retain
        self.what = what
        self.correlation = correlation
        self.stamped = stamped
    }

    init(topic: Topic, qos: QoS, retain: Bool, what: String, properties: PropertyList?) {
        self.topic = topic
        self.qos = qos
        self.retain = retain
        self.what = what
        self.properties = properties
    }
}
