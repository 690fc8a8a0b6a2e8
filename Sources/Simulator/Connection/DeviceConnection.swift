import MQTT
import Mosquitto
import Reactor
import Report
import Scenario
import Signals

/// One MQTT connection of the fleet and the devices that publish through it: a session whose
/// `ConnectionDriver` brings it up and down as its standing (`ConnectionStanding`) says, whose
/// one outbound path is its `Telemetry`, and whose jobs beside its devices' ticks are its roles'
/// (`ConnectionRole`), which act through it (`RoleContext`). It keeps the session's own state;
/// the roles keep theirs. Confined to one event loop.
final class DeviceConnection: Session {
    let plan: ConnectionPlan
    let client: Client
    let driver: ConnectionDriver
    /// Held strongly, as `counters` is: the cycle it makes through the context's connections is
    /// broken by `dismantle()`.
    let context: LoopContext
    /// The figures of this connection's device group on this loop.
    let counters: Counters
    /// Every message it sends: its devices' ticks, and what its roles and devices say beside them.
    let telemetry: Telemetry
    private(set) var devices: [Device] = []
    /// What it does beside the telemetry, in the order they hear each event, and the
    /// subscriptions each asked for.
    var roles: ConnectionRoles
    /// Opened or not, paused or away, in or out by its stages, ended.
    var standing = ConnectionStanding.unopened(paused: false) {
        didSet { telemetry.park(standing.parksTicks) }
    }
    /// How it is counted, and what its CONNACK under way ends.
    var tally = Tally()
    /// Set when it is made: whether its comings and goings are logged, whether it is one of the
    /// connections the fleet started with, and whether its devices' entities go at the run's end.
    let settings: Settings
    /// Its place in a cluster (`broker.hosts`), for the figures per host; `nil` for one broker.
    let hostLink: HostLink?
    /// Dropped by a stage (`disconnect: all`), and when: its next CONNACK says how long it took.
    var droppedBy: (stage: Int, at: UInt64)?
    /// The clean DISCONNECT deletes the devices' entities: the connection leaves the fleet, or
    /// the run ends under `--discovery-cleanup`; never a pause's.
    var farewell = Farewell.goingOffline
    /// Called once nothing more will happen on this connection: a successor with its client id
    /// opens then (see `FleetChange.Opening`).
    var whenFinished: (() -> Void)?

    struct Settings {
        /// Whether each connection's comings and goings are logged; big fleets rely on the status
        /// line and on failures logged once per reason.
        var logsEvents: Bool
        /// One of the connections the fleet started with, not one a reload or a scale added: only
        /// those count towards every connection having been up once (`RunControl.noteConnected`).
        var isInitial: Bool
        var discoveryCleanup: Bool
    }

    /// How the connection is counted, as it last changed.
    struct Tally {
        /// Counted among the connections paused (`Counters.connections(paused:)`) and up
        /// (`Counters.connections(up:)`).
        var isCountedAway = false
        var isCountedUp = false
        /// Whether the broker has refused this connection's credentials once (RunControl counts it).
        var credentialsRefused = false
        /// Whether an attempt to connect has failed: one never up by the run's end, with this, is
        /// among the report's `neverConnected`.
        var attemptHasFailed = false
        /// Whether the loop's selector watches its client.
        var hasJoined = false
        /// The planned reconnect the CONNACK under way ends, while the roles hear it.
        var connackEndsPlannedReconnect: ConnectionStanding.PlannedReconnect?
    }

    /// Descriptors each connection holds (see `Client.descriptorsPerClient`).
    static let descriptorsPerConnection = Client.descriptorsPerClient

    /// What a connection is made of before a loop takes it, made on any thread: the client and
    /// the devices' MQTT 5 property lists, what making one may fail at (an option libmosquitto
    /// refuses, a TLS file it cannot read), so that a reload that cannot make its connections
    /// changes nothing. Nothing else refers to them: they go to the loop whole
    /// (`LoopBound(handing:to:)`), which makes the connection there (`init(_:context:)`).
    struct Parts {
        let plan: ConnectionPlan
        let seed: UInt64
        let connackTimeout: Duration
        let settings: Settings
        /// The figures of its device group on its loop.
        let counters: Counters
        let hostLink: HostLink?
        let client: Client
        /// Each device's, in order.
        let properties: [PropertyList?]

        init(
            plan: ConnectionPlan, seed: UInt64, connackTimeout: Duration, settings: Settings, counters: Counters,
            hostLink: HostLink? = nil
        ) throws(ClientSetupError) {
            self.plan = plan
            self.seed = seed
            self.connackTimeout = connackTimeout
            self.settings = settings
            self.counters = counters
            self.hostLink = hostLink
            var options = plan.options
            // Messages beside the telemetry at QoS 1 (availability, discovery) are acknowledged too,
            // and a DISCONNECT waits for them (`driverAwaitsAcknowledgements`).
            options.reportsPublishes =
                plan.devices.first.map { $0.qos.isAcknowledged || $0.availability != nil || $0.discovery != nil } ?? true
            client = try Client(options: options)
            var properties: [PropertyList?] = []
            for device in plan.devices { properties.append(try DeviceConnection.propertyList(of: device)) }
            self.properties = properties
        }
    }

    /// The connection of `parts` on the loop of `context`, which owns it from here.
    init(_ parts: Parts, context: LoopContext) {
        let plan = parts.plan
        hostLink = parts.hostLink
        self.plan = plan
        settings = parts.settings
        let behaviours = DeviceBehaviour.of(plan, seed: parts.seed, scripts: context.scripts)
        roles = ConnectionRoles(plan: plan, seed: parts.seed, sources: behaviours.map(\.source))
        client = parts.client
        self.context = context
        counters = parts.counters
        driver = ConnectionDriver(
            client: client, reconnect: plan.reconnect, connackTimeout: parts.connackTimeout, watchesSilence: true,
            loop: context.loop)
        telemetry = Telemetry(
            plan: plan, client: client, driver: driver, counters: hostLink?.currentCounters ?? counters, context: context,
            stamp: roles.stamp)
        wire()
        devices = plan.devices.enumerated().map { index, device in
            Device(
                plan: device, index: index, behaviour: behaviours[index], telemetry: telemetry, group: plan.group, counters: counters,
                context: context, properties: parts.properties[index])
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

    /// Its role of type `Role`, if it has one.
    func role<Role: ConnectionRole>(_ type: Role.Type) -> Role? {
        roles.all.lazy.compactMap { $0 as? Role }.first
    }

    /// Goes on from `previous`, the connection with its client id that a reload replaced by this
    /// one: each role from its own kind there.
    func carryOn(from previous: DeviceConnection) {
        for role in roles.all {
            if let before = previous.roles.all.first(where: { type(of: $0) == type(of: role) }) { role.carryOn(from: before) }
        }
    }

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

    /// Whether its roles have it in the fleet at `time` (its stages).
    private func isIn(at time: UInt64) -> Bool {
        roles.all.allSatisfy { $0.keepsIn(at: time, self) }
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
        guard away != tally.isCountedAway else { return }
        tally.isCountedAway = away
        counters.connections(paused: away ? 1 : -1)
    }

    /// Joins the loop, whose selector watches the client from now on: before any command can
    /// reach the connection (a paused group's new connection is resumed, not opened).
    func join() {
        guard !tally.hasJoined else { return }
        tally.hasJoined = true
        client.attach(to: context.loop)
    }

    /// The run is ending: DISCONNECT if connected, otherwise stop trying.
    func stop() {
        standing.end()
        if settings.discoveryCleanup { farewell = .leaving }
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
        for role in roles.all { role.retiring(driverStanding, self) }
        // It will never be up: the fleet it started with no longer waits for it.
        if settings.isInitial, !driver.hasConnected {
            context.control.noteConnected(firstTime: true, of: context.connectionCount, counted: false)
        }
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
        for role in roles.all { role.paused(self) }
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

    /// The stages bring the connection in (it connects, or opens the first time) or take it out
    /// (it leaves cleanly, as a pause does; its devices have no ticks until they are in again).
    /// A pause by request holds through a join.
    func stagesTurned(in isIn: Bool) {
        guard let move = standing.stagesTurned(in: isIn, connected: isConnected) else { return }
        logEvent(isIn ? "joining (stages)" : "leaving (stages)")
        if !isIn, let dropped = droppedBy {
            // Out, it is not one of the storm's to come back.
            droppedBy = nil
            context.control.recoveries.withLock { $0[dropped.stage, default: (0, [])].dropped -= 1 }
        }
        follow(move)
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

    var metadata: KeyValuePairs<String, Logger.Value> {
        ["client": .string(plan.options.clientID ?? "-"), "broker": "\(client.options.host):\(client.options.port)"]
    }

    /// `device`'s MQTT 5 properties as libmosquitto's list, made once for all its messages;
    /// `nil` for a device without. A value libmosquitto refuses fails the connection's set-up.
    static func propertyList(of device: DevicePlan) throws(ClientSetupError) -> PropertyList? {
        guard let properties = device.properties else { return nil }
        return try PropertyList(properties)
    }
}
