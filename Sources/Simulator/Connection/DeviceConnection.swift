import MQTT
import Mosquitto
import Reactor
import Report
import Scenario
import Signals

/// One MQTT connection of the fleet and the devices that publish through it: a session whose
/// `ConnectionDriver` brings it up and down as its standing (`ConnectionStanding`) says, whose
/// first job is its devices' telemetry (`Telemetry`), and whose other jobs (availability,
/// discovery, commands) its roles say (`ConnectionRole`). Confined to one event loop.
final class DeviceConnection: Session, @unchecked Sendable {
    let plan: ConnectionPlan
    let client: Client
    let driver: ConnectionDriver
    private(set) var devices: [Device] = []
    /// Held strongly, as `counters` is: the cycle it makes through the context's connections is
    /// broken by `dismantle()`.
    let context: LoopContext
    /// The figures of this connection's device group on this loop.
    let counters: Counters
    /// Its place in a cluster (`broker.hosts`), for the figures per host; `nil` for one broker.
    let hostLink: HostLink?
    /// Its devices' ticks as PUBLISHes.
    let telemetry: Telemetry
    var qos: QoS { telemetry.qos }
    /// Whether the broker has refused this connection's credentials once (RunControl counts it).
    var credentialsRefused = false
    /// Whether an attempt to connect has failed: one never up by the run's end, with this, is
    /// among the report's `neverConnected`.
    var attemptHasFailed = false
    /// Whether each connection's comings and goings are logged; big fleets rely on the status
    /// line and on failures logged once per reason.
    let logsEvents: Bool
    /// Opened or not, paused or away, in or out by its stages, ended.
    var standing = ConnectionStanding.unopened(paused: false) {
        didSet { telemetry.parksTicks = parksTicks }
    }
    /// A Sparkplug edge node with a primary host: from its CONNACK, or from the host's going
    /// offline, until its births, its devices' data waits (no DDATA before the births). Their
    /// ticks count as `paused`: the node is connected, so they are not `skippedOffline`, and it
    /// holds them back by design, as a connection away by its lifecycle does, rather than lose
    /// them to a fault; nor are they `buffered`, since the host, back, wants the births and the
    /// values from then on, not a burst of what it missed. What the queue held from an outage
    /// before waits with them, and goes after the births.
    var holdsDataUntilBirths = false {
        didSet { telemetry.parksTicks = parksTicks }
    }
    private var parksTicks: Bool { standing.parksTicks || holdsDataUntilBirths }
    /// Counted among the connections paused (`Counters.connections(paused:)`), as `standing`
    /// said when it last changed.
    private var isCountedAway = false
    /// Counted among the connections up (`Counters.connections(up:)`).
    var isCountedUp = false
    /// One of the connections the fleet started with, not one a reload or a scale added: only
    /// those count towards every connection having been up once (`RunControl.noteConnected`).
    let isInitial: Bool

    /// With a `lifecycle`: when the connection next leaves (while up) or comes back (while
    /// away), and the draws of its stays.
    let lifecycleTimer: Timer
    var lifecycleRandom: Xoshiro256StarStar
    /// Dropped by a stage (`disconnect: all`), and when: its next CONNACK says how long it took.
    var droppedBy: (stage: Int, at: UInt64)?
    /// Under `devices` stages (`plan.presence`): when the connection next joins the fleet or
    /// leaves it.
    let presenceTimer: Timer
    /// With a SAS token (Azure IoT Hub): when it is renewed, and the draws of its jitter.
    let renewalTimer: Timer
    var renewalRandom: Xoshiro256StarStar
    /// A Sparkplug edge node with a primary host: when it connects again after leaving for the
    /// host's going offline.
    let rejoinTimer: Timer?

    /// What it does beside the telemetry, in the order they hear each event; and the
    /// subscriptions each asked for, by the role's index.
    let roles: [any ConnectionRole]
    var subscriptions: [Int: Subscriptions] = [:]
    /// The edge node's numbers, for a Sparkplug group's connection.
    let sparkplug: SparkplugSequencer?
    /// Which of the edge node's devices are born, as `devices` stages bring them in and out.
    var sparkplugDevices: SparkplugDeviceRoster
    /// Home Assistant discovery's role, which keeps each device's last payload for its restarts.
    let discovery: DiscoveryRole?
    /// QoS 1 messages beside the telemetry not yet acknowledged, by id: what they were for, in
    /// the words of a refusal.
    var asideAwaitingAcknowledgement: [Int32: (topic: String, what: String)] = [:]
    /// The clean DISCONNECT deletes the devices' entities: the connection leaves the fleet, or
    /// the run ends under `--discovery-cleanup` (`discoveryCleanup`); never a pause's.
    var farewell = Farewell.goingOffline
    /// The reason code of the clean DISCONNECT under way, as its roles' last words ask: 0x04
    /// for a Sparkplug node under MQTT 5, whose NDEATH is then its will.
    var disconnectReason = ReasonCode.success
    private let discoveryCleanup: Bool
    /// Called once nothing more will happen on this connection: a successor with its client id
    /// opens then (see `FleetChange.Opening`).
    var whenFinished: (() -> Void)?

    /// Descriptors each connection holds (see `Client.descriptorsPerClient`).
    static let descriptorsPerConnection = Client.descriptorsPerClient

    init(
        plan: ConnectionPlan, seed: UInt64, connackTimeout: Duration, logsEvents: Bool,
        context: LoopContext, counters: Counters, isInitial: Bool = true, discoveryCleanup: Bool = false, hostLink: HostLink? = nil
    ) throws(ClientSetupError) {
        self.hostLink = hostLink
        self.plan = plan
        self.isInitial = isInitial
        self.discoveryCleanup = discoveryCleanup
        let qos = plan.devices.first?.qos ?? .atMostOnce
        discovery = DiscoveryRole(devices: plan.devices, qos: qos)
        let roles: [(any ConnectionRole)?] = [
            AvailabilityRole(devices: plan.devices), discovery, CommandRole(devices: plan.devices),
            SparkplugRole(plan: plan.sparkplug, devices: plan.devices, protocolVersion: plan.options.protocolVersion),
        ]
        self.roles = roles.compactMap { $0 }
        var options = plan.options
        // QoS 1 messages beside the telemetry (availability, discovery) are acknowledged too,
        // and a DISCONNECT waits for them (`driverAwaitsAcknowledgements`).
        options.reportsPublishes =
            plan.devices.first.map { $0.qos.isAcknowledged || $0.availability != nil || $0.discovery != nil } ?? true
        client = try Client(options: options)
        self.context = context
        self.counters = counters
        lifecycleTimer = Timer(on: context.loop)
        presenceTimer = Timer(on: context.loop)
        renewalTimer = Timer(on: context.loop)
        rejoinTimer = plan.sparkplug?.primaryHost == nil ? nil : Timer(on: context.loop)
        // The jitter follows from the seed and the client id alone, whichever shard runs it.
        renewalRandom = Seed(seed).derive("devsim.tokenRenewal").derive(plan.options.clientID ?? "").generator()
        lifecycleRandom = Seed(plan.lifecycle?.seed ?? 0).generator()
        self.logsEvents = logsEvents
        driver = ConnectionDriver(
            client: client, reconnect: plan.reconnect, connackTimeout: connackTimeout, watchesSilence: true,
            loop: context.loop)
        sparkplug = plan.sparkplug.map { SparkplugSequencer(topic: $0.topic) }
        sparkplugDevices = SparkplugDeviceRoster(devices: plan.sparkplug == nil ? 0 : plan.devices.count)
        telemetry = Telemetry(
            plan: plan, client: client, driver: driver, counters: hostLink?.currentCounters ?? counters, context: context,
            sparkplug: sparkplug)
        wire()
        lifecycleTimer.target = self
        presenceTimer.target = self
        renewalTimer.target = self
        rejoinTimer?.target = self
        let firstAliases = plan.sparkplug.map { _ in SparkplugNodePlan.firstAliases(of: plan.devices) }
        var made: [Device] = []
        for (index, device) in plan.devices.enumerated() {
            made.append(
                Device(
                    plan: device, seed: seed, connection: self, counters: counters, context: context,
                    sparkplugAliases: firstAliases?[index], properties: try Self.propertyList(of: device)))
        }
        devices = made
        for case let role as SparkplugRole in roles {
            role.birthType = { [unowned self] index, metric in
                devices.indices.contains(index) ? devices[index].sparkplugBirthType(of: metric) : nil
            }
        }
    }

    var isConnected: Bool { driver.isConnected }

    /// An attempt under way has reached the broker, which has not answered it yet.
    var awaitsAnswerOfBroker: Bool { driver.awaitsAnswerOfBroker }

    /// Lets go of the devices, and with them of the references they hold to the telemetry and
    /// the loop's context, once the loops have stopped and the figures are read: the telemetry's
    /// window first, which holds them unretained.
    func dismantle() {
        whenFinished = nil
        telemetry.dismantle()
        devices.removeAll()
    }

    /// Whether the drain at the end of a run can still achieve something here: connected, with
    /// messages unacknowledged or queued.
    var hasDrainableMessages: Bool { telemetry.hasDrainableMessages }

    /// Ticks in the queue while connected (see `Telemetry.queuedWhileUp`).
    var queuedWhileUp: Int { telemetry.queuedWhileUp }

    /// Joins the loop and opens the connection at `deadline` (the group's ramp-up). Once only,
    /// and not once the connection has ended (`stop`, `retire`): a successor waiting for its
    /// predecessor may be retired or stopped before that one is gone.
    func open(at deadline: UInt64) {
        join()
        guard case .unopened = standing else { return }
        // Out now, it opens when its stages bring it in (a fleet that grows from none has its
        // place there), not at a deadline: a resume before that must not open it early.
        follow(standing.open(isIn: isIn(at: MonotonicClock.now())), openingAt: deadline)
    }

    /// Counts the connection as `standing` now says, then has the driver make the move its change
    /// asked for: after every change of `standing` while the connection is in the fleet.
    func follow(_ move: ConnectionStanding.Move, openingAt deadline: UInt64? = nil) {
        countAway()
        switch move {
        case .stay: break
        case .open: driver.open(at: deadline ?? MonotonicClock.now())
        // Never opened: out from its start.
        case .connect: if driver.state == .idle { driver.open(at: MonotonicClock.now()) } else { driver.resume() }
        case .disconnect: driver.pause()
        // The pause's DISCONNECT goes out, and the resume waits for its close to connect again.
        case .reconnect:
            driver.pause()
            driver.resume()
        }
    }

    /// Counts the connection among the paused while it is paused, away or out, and no longer
    /// once it is none of them.
    private func countAway() {
        let away = standing.countsAsPaused
        guard away != isCountedAway else { return }
        isCountedAway = away
        counters.connections(paused: away ? 1 : -1)
    }

    /// Joins the loop, whose selector watches the client from now on: before any command can
    /// reach the connection (a paused group's new connection is resumed, not opened).
    func join() {
        guard !hasJoined else { return }
        hasJoined = true
        client.attach(to: context.loop)
    }

    private var hasJoined = false

    /// The run is ending: DISCONNECT if connected, otherwise stop trying.
    func stop() {
        standing.end()
        if discoveryCleanup { farewell = .leaving }
        driver.stop()
    }

    /// Leaves the fleet (a reload, a scale): the devices stop ticking, the connection says
    /// `offline` where its group has availability and DISCONNECTs, or stops trying. What waits
    /// in its queue stays counted as `buffered`, as at the end of a run.
    func retire() {
        farewell = .leaving
        let driverStanding: DriverStanding =
            switch driver.state {
            case .connected: .connected
            case .pausing: .pausing
            default: .disconnected
            }
        for (index, role) in roles.enumerated() { perform(role.retiring(driverStanding), of: index) }
        // It will never be up: the fleet it started with no longer waits for it.
        if isInitial, !driver.hasConnected { context.control.noteConnected(firstTime: true, of: context.connectionCount, counted: false) }
        for device in devices { device.stop() }
        telemetry.retire()
        droppedBy = nil
        standing.end()
        countAway()
        driver.stop()
    }

    /// Sleep by request (the seed's phone in the background): ticks count as `paused`, the
    /// connection leaves cleanly. What waits in the queue stays there for the resume.
    func pause() {
        // A pause by request holds until the resume: the lifecycle waits for it, and a storm's
        // clock stops.
        lifecycleTimer.cancel()
        droppedBy = nil
        // `publish: max` devices waiting for room stay asleep (`Telemetry.wake`): the resume's
        // CONNACK wakes them, and nothing else would.
        follow(standing.pause())
    }

    /// Drops the connection, if up, as a network failure would (no DISCONNECT): it comes back
    /// through its backoff, as after any loss. Stage `stage`'s reconnect storm.
    func drop(stage: Int, now: UInt64) {
        guard isConnected, standing == .active else { return }
        droppedBy = (stage, now)
        context.control.recoveries.withLock { $0[stage, default: (0, [])].dropped += 1 }
        driver.abandon(because: "connection lost: dropped by stage \(stage) (disconnect: all)")
    }

    /// Wake: connect again; ticks are published from the CONNACK on. Not a connection away
    /// by its lifecycle, which a group's resume does not cut short.
    func resume() {
        // A paused group's new connection is resumed, not opened: its stages are asked then.
        // Out by its stages, it connects when they bring it in.
        let asksStages = standing == .unopened(paused: true)
        follow(standing.resume(isIn: asksStages && isIn(at: MonotonicClock.now())))
    }

    /// The devices tick `perSecond` times a second from now on.
    func setRate(_ perSecond: Double) {
        let now = MonotonicClock.now()
        for device in devices { device.setRate(perSecond, now: now) }
    }

    /// A capacity search's step: each device ticks at its plan's rate times `multiplier`.
    func scaleRates(by multiplier: Double, now: UInt64) {
        for device in devices { device.setRate(device.plan.perSecond * multiplier, now: now) }
    }

    /// Logs `message` once for the whole run, whichever connection says it.
    func warnOnce(_ message: String, key: String? = nil) {
        telemetry.warnOnce(message, key: key)
    }

    var metadata: KeyValuePairs<String, Logger.Value> {
        ["client": .string(plan.options.clientID ?? "-"), "broker": "\(client.options.host):\(client.options.port)"]
    }
}
