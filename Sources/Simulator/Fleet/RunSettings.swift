import MQTT
import Report
import Scenario

/// What the command line decides about a run: overrides of the scenarios' broker settings and
/// the run's bounds. `nil` means "as the scenario says, or the default".
public struct RunSettings: Sendable {
    public var host: String?
    public var port: Int?
    /// `--url`: host, port, transport and TLS in one, over the scenarios'.
    public var url: BrokerURL? = nil
    /// A `--url` list: the nodes of a cluster, over the scenarios' `broker.hosts` (`url` is the
    /// first of them).
    public var hosts: BrokerHosts? = nil
    /// `--bind`: the source addresses of the connections, over the scenarios' `broker.bind`.
    public var bind: BindAddresses? = nil
    public var username: String?
    public var password: String?
    /// Connect without any user name or password, the scenario's included.
    public var anonymous = false
    /// Keep trying when the broker refuses every connection's credentials (an auth back end
    /// that starts late), instead of ending the run at once.
    public var retryRefused = false
    /// devsim's version, for what names it (Home Assistant's `sw_version`).
    public var version = "dev"
    /// A clean end of the run deletes the entities the devices announced (`--discovery-cleanup`).
    public var discoveryCleanup = false
    /// The MQTT version of every connection, over the scenarios'.
    public var mqttProtocol: ProtocolVersion? = nil
    /// `nil` runs until stopped or `messages` is reached.
    public var duration: Duration?
    /// Ticks over the whole fleet after which the run ends.
    public var messages: Int?
    public var seed: UInt64
    /// Event loops (threads) to spread the connections over.
    public var loops: Int
    /// After which a run that never got a CONNACK gives up.
    public var connectTimeout: Duration
    /// How long one connection attempt waits for its CONNACK before it is given up and retried.
    public var connackTimeout: Duration
    /// What in-flight QoS 1/2 messages get to be acknowledged when the run ends.
    public var drainTimeout: Duration
    /// Between status lines; `nil` for none.
    public var statsInterval: Duration?
    /// Between the points of the report's timeline; `nil` for none.
    public var timelineInterval: Duration? = Defaults.timelineInterval
    /// Unacknowledged QoS 1/2 messages a connection may have at once.
    public var maxInFlight: Int
    /// How long a QoS 1/2 message may wait for its acknowledgement, over the scenarios'
    /// `broker.ackTimeout`.
    public var ackTimeout: Duration? = nil
    /// Log every connection's comings and goings, however big the fleet.
    public var logConnectionEvents: Bool
    /// Where to redraw the status line in place (a terminal), instead of logging it every
    /// `statsInterval`; it is then redrawn every second.
    public var liveStatus: (@Sendable (String) -> Void)?
    /// Run the closed-loop check: a subscriber of our own counts what arrives (`run --verify`).
    public var verify = false
    /// Run only this slice of the fleet's devices (`run --shard K/N`); `nil` runs them all.
    public var shard: Shard? = nil
    /// A test's hook, set by in-process tests alone (no flag or variable reaches it): the first
    /// event loop blocks this long, a second into the run, as a loop stuck in a call would, for
    /// `/healthz` to see.
    package var stallFirstLoop: Duration? = nil
    /// `run --find-capacity`: the run steps its rate up until an SLO breaks, and ends when the
    /// search is over.
    public var capacity: CapacitySettings? = nil

    public init(
        host: String? = nil, port: Int? = nil, username: String? = nil, password: String? = nil,
        duration: Duration? = nil, messages: Int? = nil, seed: UInt64 = 0, loops: Int = 1,
        connectTimeout: Duration = Defaults.connectTimeout, connackTimeout: Duration = Defaults.connackTimeout,
        drainTimeout: Duration = Defaults.drainTimeout, statsInterval: Duration? = Defaults.statsInterval,
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
