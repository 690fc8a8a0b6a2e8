import MQTT
import Scenario

/// What the command line decides about a run: overrides of the scenarios' broker settings and
/// the run's bounds. `nil` means "as the scenario says, or the default".
public struct RunSettings: Sendable {
    public var host: String?
    public var port: Int?
    public var username: String?
    public var password: String?
    /// Connect without any user name or password, the scenario's included.
    public var anonymous = false
    /// The MQTT version of every connection, over the scenarios'.
    public var mqttProtocol: ProtocolVersion? = nil
    /// Seconds; `nil` runs until stopped or `messages` is reached.
    public var duration: Double?
    /// Ticks over the whole fleet after which the run ends.
    public var messages: Int?
    public var seed: UInt64
    /// Event loops (threads) to spread the connections over.
    public var loops: Int
    /// Seconds after which a run that never got a CONNACK gives up.
    public var connectTimeout: Double
    /// Seconds one connection attempt waits for its CONNACK before it is given up and retried.
    public var connackTimeout: Double
    /// Seconds that in-flight QoS 1/2 messages get to be acknowledged when the run ends.
    public var drainTimeout: Double
    /// Seconds between status lines; `nil` for none.
    public var statsInterval: Double?
    /// Unacknowledged QoS 1/2 messages a connection may have at once.
    public var maxInFlight: Int
    /// Log every connection's comings and goings, however big the fleet.
    public var logConnectionEvents: Bool
    /// Where to redraw the status line in place (a terminal), instead of logging it every
    /// `statsInterval`; it is then redrawn every second.
    public var liveStatus: (@Sendable (String) -> Void)?
    /// Run the closed-loop check: a subscriber of our own counts what arrives (`run --verify`).
    public var verify = false
    /// Run only this slice of the fleet's devices (`run --shard K/N`); `nil` runs them all.
    public var shard: Shard? = nil

    public init(
        host: String? = nil, port: Int? = nil, username: String? = nil, password: String? = nil,
        duration: Double? = nil, messages: Int? = nil, seed: UInt64 = 0, loops: Int = 1,
        connectTimeout: Double = Defaults.connectTimeout, connackTimeout: Double = Defaults.connackTimeout,
        drainTimeout: Double = Defaults.drainTimeout, statsInterval: Double? = Defaults.statsInterval,
        maxInFlight: Int = Defaults.maxInFlight, logConnectionEvents: Bool = false
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.duration = duration
        self.messages = messages
        self.seed = seed
        self.loops = loops
        self.connectTimeout = connectTimeout
        self.connackTimeout = connackTimeout
        self.drainTimeout = drainTimeout
        self.statsInterval = statsInterval
        self.maxInFlight = maxInFlight
        self.logConnectionEvents = logConnectionEvents
        liveStatus = nil
    }
}
