import MQTT
import Report
import Scenario
import Signals

/// The whole fleet of a run: every scenario's groups expanded into connections and devices.
public struct FleetPlan: Sendable {
    public var connections: [ConnectionPlan]
    /// The names of the device groups of every scenario, in order: figures are kept per group.
    public var groups: [String] = []
    /// Each group's identity and description, in the order of `groups`, for a running fleet to
    /// tell what a reload changed (see `FleetChange`).
    package var groupPlans: [GroupPlan] = []
    /// The scenarios the plan was made from, for a command that remakes it (`scale`).
    package var scenarios: [Scenario] = []
    /// The scenarios' control topics, each with the broker of the scenario that names it (a
    /// connection of the fleet's first such group, with a client id of its own).
    package var controls: [(topic: String, options: ClientOptions, reconnect: ReconnectSettings)] = []
    /// Ids that two devices or two connections would share, one message for each pair of device
    /// groups that clash, at the place the second group is written. A run must not start with
    /// any: a broker disconnects a client when another connects with its id, and two devices
    /// with one id draw the same values, at the same instants. And shared subscriptions that two
    /// subscriber groups both make (`SubscriberGroupPlan.shareConflicts`).
    public var conflicts: [Diagnostic]
    /// The subscriber groups (`subscribers:`), with the members this shard runs.
    package var subscribers: [SubscriberGroupPlan] = []
    /// Every set of TLS settings the connections use, the devices', subscribers' and control's
    /// (each made by `clientOptions`), with where its files are named.
    package var tlsUses: [TLSUse] = []

    /// The subscriber groups' connections this plan runs.
    package var subscriberConnectionCount: Int { subscribers.reduce(0) { $0 + $1.members.count } }

    public var deviceCount: Int { connections.reduce(0) { $0 + $1.devices.count } }

    /// The run's load profile: the `stages` of the scenarios that have any, which must agree.
    public var stages: [Stage] = []

    /// The slice of the fleet this plan holds, `nil` for all of it (`RunSettings.shard`).
    public var shard: Shard? = nil
    /// Devices in the whole fleet, every shard's together.
    public var fleetDeviceCount: Int

    /// Expands every scenario's device groups. With `settings.shard`, only the devices of that
    /// shard are kept (see `Shard`), and connections left without devices are dropped: a
    /// per-device connection keeps its client id, ramp-up offset and device index as in the
    /// whole fleet; a group with `connection: { shared: N }` is sharded before its devices are
    /// dealt over its N shared connections, whose client ids then name the shard so they stay
    /// unique across shards. `conflicts` are those of the whole fleet, so every shard refuses
    /// a fleet that clashes.
    public init(scenarios: [Scenario], settings: RunSettings) {
        if let shard = settings.shard {
            var whole = settings
            whole.shard = nil
            let all = FleetPlan(scenarios: scenarios, settings: whole)
            self = FleetPlan(scenarios: scenarios, settings: settings, keeping: shard)
            self.shard = shard
            fleetDeviceCount = all.deviceCount
            conflicts = all.conflicts
            subscribers = SubscriberGroupPlan.plans(
                for: scenarios, settings: settings, shard: shard, devices: all.connections.flatMap(\.devices))
        } else {
            self = FleetPlan(scenarios: scenarios, settings: settings, keeping: nil)
            subscribers = SubscriberGroupPlan.plans(for: scenarios, settings: settings, shard: nil, devices: connections.flatMap(\.devices))
        }
    }

    private init(scenarios: [Scenario], settings: RunSettings, keeping shard: Shard?) {
        var connections: [ConnectionPlan] = []
        // A run has one load profile, whichever file gives it, for every group without its own.
        let profile = scenarios.first(where: { !$0.stages.isEmpty })?.stages ?? []
        // Its `devices` are the fleet's: each group has its part, by its count.
        let following = scenarios.flatMap(\.groups).filter(\.stages.isEmpty).reduce(0) { $0 + max(1, $1.count) }
        /// Connections of the groups before this one that open at the default rate: together
        /// those groups open at most `Defaults.rampUp` a second, one after another.
        var defaultRampPosition = 0
        var clientIDs = Claims(
            kind: "client id", consequence: "two clients with one id knock each other off the broker",
            template: "clientId", placeholders: "{id} or {index}")
        var echoConflicts: [Diagnostic] = []
        var identityConflicts: [Diagnostic] = []
        var deviceIDs = Claims(
            kind: "device id", consequence: "two devices with one id draw the same values at the same instants",
            template: "id", placeholders: "{index}")
        for scenario in scenarios {
            var tls = TLSUses(of: scenario, path: ScenarioKeys.tls.path)
            /// Connections of the scenario's groups before this one, in the whole fleet.
            var scenarioSlot = 0
            var devices: [(id: String, group: String)] = []
            for group in scenario.groups {
                let owner = Claims.Owner(
                    group: group.name,
                    location: group.location
                        ?? SourceLocation(file: scenario.file, line: 1, column: 1))
                var made = FleetPlan.connections(
                    for: group, in: scenario, settings: settings, shard: shard, rampPosition: defaultRampPosition, stages: profile,
                    fleetCount: following, scenarioSlot: scenarioSlot)
                scenarioSlot += Self.connectionCount(of: group)
                if group.rampUp == nil { defaultRampPosition += Self.connectionCount(of: group) }
                if let echo = Self.echoConflict(in: made, group: group.name, at: owner.location) { echoConflicts.append(echo) }
                if let shared = Self.sharedIdentityConflict(of: group, in: scenario, at: owner.location) {
                    identityConflicts.append(shared)
                }
                devices += made.flatMap(\.devices).map { ($0.id, group.name) }
                for index in made.indices { made[index].group = groups.count }
                groups.append(group.name)
                groupPlans.append(GroupPlan(group: group, in: scenario))
                for connection in made {
                    let id = connection.devices.count == 1 ? connection.devices[0].id : connection.options.clientID ?? group.name
                    tls.add(connection.options.tls, for: (connection.devices.count == 1 ? "device " : "connection ") + id, id: id)
                    // No client id: libmosquitto makes a random one.
                    if let clientID = connection.options.clientID { clientIDs.claim(clientID, by: owner) }
                    for device in connection.devices { deviceIDs.claim(device.id, by: owner) }
                }
                connections += made
            }
            // A subscriber's client id is as much the broker's key as a device's.
            for group in scenario.subscribers {
                let owner = Claims.Owner(
                    group: group.name, location: group.location ?? SourceLocation(file: scenario.file, line: 1, column: 1),
                    kind: "subscriber group", member: "connection")
                let version = Self.protocolVersion(of: scenario, settings: settings)
                let subscriberIDs = (1...max(1, group.count)).map { group.clientID(index: $0, version: version) }
                if let conflict = Self.subscriberTokenConflict(of: group, in: scenario, clientIDs: subscriberIDs) {
                    identityConflicts.append(conflict)
                }
                for (index, clientID) in zip(1..., subscriberIDs) {
                    clientIDs.claim(clientID, by: owner)
                    let options = Self.clientOptions(
                        scenario: scenario, settings: settings, clientID: clientID, group: group.name, index: index, id: clientID, will: nil
                    )
                    tls.add(options.tls, for: "subscriber " + clientID, id: clientID)
                }
            }
            tlsUses += tls.uses
            if let conflict = Self.controlIdentityConflict(of: scenario) { identityConflicts.append(conflict) }
            identityConflicts += Self.propertyConflicts(of: scenario, settings: settings)
            if let conflict = Self.connectPropertyConflict(of: scenario, settings: settings) { identityConflicts.append(conflict) }
            identityConflicts += Self.credentialConflicts(
                of: scenario, devices: devices, hasTLS: Self.tls(of: scenario, settings: settings) != nil)
            if let tls = scenario.verify?.tls {
                tlsUses.append(TLSUse(settings: tls, path: ScenarioKeys.verifierTLS.path, in: scenario))
            }
            if let topic = scenario.controlTopic,
                let first = scenario.groups.first.flatMap({ FleetPlan.connections(for: $0, in: scenario, settings: settings).first })
            {
                // devsim's own connection: as the verifier where `verify:` names one, not as a
                // device, whose identity a broker may let publish its own topics only.
                var options = Verifier.subscriberOptions(first.options, as: scenario.verify)
                options.clientID = options.protocolVersion.clientID(
                    "devsim-control-\(scenario.name)-\(shard.map { "\($0.index)of\($0.count)" } ?? "all")")
                options.will = nil
                options.reportsPublishes = false
                controls.append((topic, options, first.reconnect))
            }
        }
        self.connections = connections
        self.scenarios = scenarios
        var stageConflicts: [Diagnostic] = []
        if let first = scenarios.first(where: { !$0.stages.isEmpty }) {
            stages = first.stages
            // Where they are written does not matter, what they say does.
            let profile = { (scenario: Scenario) in scenario.stages.map(\.profile) }
            for other in scenarios where !other.stages.isEmpty && profile(other) != profile(first) {
                guard let place = other.stages[0].location else { continue }
                stageConflicts.append(
                    Diagnostic(
                        file: place.file, line: place.line, column: place.column,
                        message: "these stages differ from those of \(first.file); a run has one load profile: give it in one file"))
            }
        }
        conflicts =
            deviceIDs.conflicts + clientIDs.conflicts + SubscriberGroupPlan.shareConflicts(in: scenarios) + stageConflicts
            + Self.followingConflicts(of: scenarios) + Self.nameConflicts(of: scenarios) + echoConflicts + identityConflicts
            + Self.replayConflicts(of: scenarios)
        fleetDeviceCount = connections.reduce(0) { $0 + $1.devices.count }
    }
}
