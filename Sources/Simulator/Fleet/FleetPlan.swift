import MQTT
import Scenario
import Signals

/// One simulated device, resolved: its templates filled in and its rates in numbers.
public struct DevicePlan: Sendable {
    public var group: String
    public var index: Int
    public var id: String
    public var topic: String
    public var qos: QoS
    public var retain: Bool
    public var perSecond: Double
    /// Seconds between sensor samples, `nil` for one sample per publish.
    package var sampleInterval: Double?
    package var payload: PayloadSpec
    /// Seconds from the connection's first CONNACK to the device's first tick, from the
    /// group's `jitter` (`StartJitter.standard` when it has none).
    package var startDelay: Double
    /// What `run --verify` reads of the device's messages; the same for its whole group.
    public var verify: VerifyPlan
    /// Where the device says whether it is there (its group's `availability`), and the words.
    package var availability: Announcement? = nil
    /// The device's entities for Home Assistant (its group's `discovery`).
    package var discovery: HomeAssistantDiscovery? = nil
    /// Where the device listens for commands (its group's `commands`).
    package var commands: CommandPlan? = nil
    /// Which fields its ticks watch, sent only on a change or a heartbeat (`onChange`).
    package var onChange: OnChange? = nil
    /// Its rate over the run under its load profile (its group's `stages`, or the scenario's),
    /// and when it is in under `devices` stages; `nil` for a steady rate.
    package var profile: RateProfile? = nil

    /// Whether the device says its state at a CONNACK, beside its schedule (issue 25, item 5): a
    /// dashboard shows it (`discovery`, `availability`, `commands`), it has a schedule (not
    /// `publish: max`), and its next tick is not due by then (`tickIsDue`), which would be that
    /// state. The run asks at each CONNACK, the dry run and `sample` at the first, so that they
    /// show what the run publishes.
    package func saysStateAtConnect(tickIsDue: Bool) -> Bool {
        (discovery != nil || availability != nil || commands != nil) && perSecond.isFinite && !tickIsDue
    }

    /// `{topic}/{field}` for each field in the per-field style (`PayloadStyle.perField`); empty
    /// for the other styles, whose messages go to `topic`.
    package var fieldTopics: [String] {
        payload.style == .perField ? payload.fields.map { topic + "/" + $0.name } : []
    }

    /// A topic on which the device says `online` and `offline`.
    package struct Announcement: Sendable, Equatable {
        package var topic: String
        package var online: [UInt8]
        package var offline: [UInt8]
    }

    /// An offset in [0, `jitter`) that depends on the run's seed and the device's id alone, so
    /// a run with the same seed starts each device at the same point after its CONNACK.
    package static func startDelay(jitter: Double, seed: UInt64, deviceID: String) -> Double {
        guard jitter > 0, jitter.isFinite else { return 0 }
        var random = Seed(seed).derive("devsim.start-jitter").derive(deviceID).generator()
        return random.nextUnit() * jitter
    }
}

/// One MQTT connection and the devices that publish through it.
public struct ConnectionPlan: Sendable {
    public var options: ClientOptions
    public var devices: [DevicePlan]
    package var offline: OfflinePolicy
    package var reconnect: ReconnectSettings
    /// The wait for a QoS 1/2 acknowledgement after which a message counts as timed out, and
    /// what that does; `nil` for no limit.
    package var ackTimeout: AckTimeout? = nil
    /// Seconds after the run's start at which the connection is opened (the group's ramp-up).
    package var startOffset: Double
    /// Its group's `lifecycle`, with the seed of its stays; `nil` to stay up.
    package var lifecycle: (lifecycle: Lifecycle, seed: UInt64)? = nil
    /// When it is connected under `devices` stages: while its first device is in (the others
    /// of a shared connection join after it and leave before it); `nil` for always.
    package var presence: Presence? = nil
    /// The connection's device group: an index into `FleetPlan.groups`.
    public var group = 0
}

/// A device group as a running fleet tells it apart from another: by its name, and by
/// everything its connections are made from but its device count.
package struct GroupPlan: Sendable, Equatable {
    /// No other group of a run has it (see `FleetPlan.conflicts`): every figure of the group is
    /// kept and shown under it, so a group a reload brings back, or moves to another file, is
    /// the same group again.
    package var name: String
    /// The group's description, the scenario's broker and offline policy, in one text: equal for
    /// a group whose connections a reload can leave alone, or only add to and take from. Every
    /// part but the place the group is written and its count, which a `scale` changes.
    package var fingerprint: String

    package init(group: DeviceGroup, in scenario: Scenario) {
        name = group.name
        var described = group
        described.location = nil
        described.count = 0
        // A deep dump, not Equatable: the generators are existentials of many types.
        var text = ""
        let stages = scenario.stages.map(\.profile)
        dump((scenario.name, scenario.broker, scenario.offline, stages, described), to: &text)
        fingerprint = text
    }
}

/// How long a connection's QoS 1/2 messages may wait for their acknowledgement, and what one
/// that waited longer does.
package struct AckTimeout: Sendable, Equatable {
    package var limit: Duration
    package var action: AckTimeoutAction
}

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
        var deviceIDs = Claims(
            kind: "device id", consequence: "two devices with one id draw the same values at the same instants",
            template: "id", placeholders: "{index}")
        for scenario in scenarios {
            for group in scenario.groups {
                let owner = Claims.Owner(
                    group: group.name,
                    location: group.location
                        ?? SourceLocation(file: scenario.file, line: 1, column: 1))
                var made = FleetPlan.connections(
                    for: group, in: scenario, settings: settings, shard: shard, rampPosition: defaultRampPosition, stages: profile,
                    fleetCount: following)
                if group.rampUp == nil { defaultRampPosition += Self.connectionCount(of: group) }
                if let echo = Self.echoConflict(in: made, group: group.name, at: owner.location) { echoConflicts.append(echo) }
                for index in made.indices { made[index].group = groups.count }
                groups.append(group.name)
                groupPlans.append(GroupPlan(group: group, in: scenario))
                for connection in made {
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
                for index in 1...max(1, group.count) {
                    clientIDs.claim(group.clientID.render(name: group.name, index: index, id: nil), by: owner)
                }
            }
            if let tls = Self.tls(of: scenario, settings: settings) {
                tlsUses.append(TLSUse(settings: tls, path: ScenarioKeys.tls.path, in: scenario))
            }
            if let tls = scenario.verify?.tls {
                tlsUses.append(TLSUse(settings: tls, path: ScenarioKeys.verifierTLS.path, in: scenario))
            }
            if let topic = scenario.controlTopic,
                let first = scenario.groups.first.flatMap({ FleetPlan.connections(for: $0, in: scenario, settings: settings).first })
            {
                var options = first.options
                options.clientID = "devsim-control-\(scenario.name)-\(shard.map { "\($0.index)of\($0.count)" } ?? "all")"
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
            + Self.followingConflicts(of: scenarios) + Self.nameConflicts(of: scenarios) + echoConflicts
        fleetDeviceCount = connections.reduce(0) { $0 + $1.devices.count }
    }

    /// Device groups of two files with one name: each file's loader refused its own. A group's
    /// figures are kept, shown and commanded under its name alone (`/metrics` would repeat a
    /// series, which Prometheus refuses).
    private static func nameConflicts(of scenarios: [Scenario]) -> [Diagnostic] {
        var first: [String: SourceLocation] = [:]
        var conflicts: [Diagnostic] = []
        for scenario in scenarios {
            for group in scenario.groups {
                let place = group.location ?? SourceLocation(file: scenario.file, line: 1, column: 1)
                guard let earlier = first[group.name] else {
                    first[group.name] = place
                    continue
                }
                conflicts.append(
                    Diagnostic(
                        file: place.file, line: place.line, column: place.column,
                        message: "device group name '\(group.name)' is also used at \(earlier); a run keeps each group's figures "
                            + "under its name: give the groups different names"))
            }
        }
        return conflicts
    }

    /// A device group whose devices' command topics take in what the devices publish
    /// themselves (`CommandPlan.echo`), at the group, naming the first such device's topics.
    private static func echoConflict(in connections: [ConnectionPlan], group: String, at place: SourceLocation) -> Diagnostic? {
        for device in connections.lazy.flatMap(\.devices) {
            guard let commands = device.commands, let topic = commands.echo(of: device) else { continue }
            return Diagnostic(
                file: place.file, line: place.line, column: place.column,
                message: "device group '\(group)' listens for commands on '\(commands.filter)', which takes in its own "
                    + "'\(topic)': what a device publishes would come back to it as a command; give the commands a topic "
                    + "of their own")
        }
        return nil
    }

    /// What a file's loader could not see of the groups of other files that follow its stages
    /// (a run has one load profile, whichever file gives it): a rate to ramp, no lifecycle
    /// under `devices` stages, and a fleet whose count those stages reach and never pass.
    private static func followingConflicts(of scenarios: [Scenario]) -> [Diagnostic] {
        guard let owner = scenarios.first(where: { !$0.stages.isEmpty }), scenarios.count > 1 else { return [] }
        let stages = owner.stages
        var conflicts: [Diagnostic] = []
        func conflict(at place: SourceLocation?, _ message: String) {
            let place = place ?? SourceLocation(file: owner.file, line: 1, column: 1)
            conflicts.append(Diagnostic(file: place.file, line: place.line, column: place.column, message: message))
        }
        // The owner's own groups its loader checked already.
        let others = scenarios.filter { $0.file != owner.file }.flatMap(\.groups).filter(\.stages.isEmpty)
        for group in others {
            if !group.publish.perSecond.isFinite {
                conflict(
                    at: group.location,
                    "device group '\(group.name)' publishes at max, and follows the stages of \(owner.file): it has no rate to ramp")
            }
            if group.lifecycle != nil, stages.setsDevices {
                conflict(
                    at: group.location,
                    "device group '\(group.name)' has a 'lifecycle' and follows the 'devices' stages of \(owner.file): "
                        + "either the stages or the lifecycle say when a device is connected, not both")
            }
        }
        let count = scenarios.flatMap(\.groups).filter(\.stages.isEmpty).reduce(0) { $0 + $1.count }
        if stages.setsDevices, !others.isEmpty, stages.devicePeak(count: count) != count {
            conflict(
                at: stages[0].location,
                "the 'devices' stages count the run's fleet of \(count) devices (the groups of every file without stages of "
                    + "their own), and reach \(stages.devicePeak(count: count)): make the peak \(count), or the counts add up to it")
        }
        return conflicts
    }

    /// Who first used each id of one kind, and the clashes found.
    private struct Claims {
        struct Owner {
            var group: String
            var location: SourceLocation
            /// What the group is, and what each of its ids is for, in messages.
            var kind = "device group"
            var member = "device"
        }

        let kind: String
        let consequence: String
        /// The group key whose template makes these ids, and what makes them differ per device.
        let template: String
        let placeholders: String
        var owners: [String: Owner] = [:]
        var reported: Set<[String]> = []
        var conflicts: [Diagnostic] = []

        mutating func claim(_ id: String, by owner: Owner) {
            guard let first = owners[id] else {
                owners[id] = owner
                return
            }
            guard reported.insert([first.location.description, owner.location.description]).inserted else { return }
            let message =
                first.location == owner.location
                ? "\(kind) '\(id)' is used by more than one \(owner.member) of \(owner.kind) '\(owner.group)'; "
                    + "\(consequence): put \(placeholders) in '\(template)'"
                : "\(kind) '\(id)' of \(owner.kind) '\(owner.group)' is also used by \(first.kind) '\(first.group)' "
                    + "at \(first.location); \(consequence): give the groups different names, or different '\(template)' templates"
            conflicts.append(
                Diagnostic(
                    file: owner.location.file, line: owner.location.line,
                    column: owner.location.column, message: message))
        }
    }

    /// Connections of the whole group, every shard's together.
    private static func connectionCount(of group: DeviceGroup) -> Int {
        switch group.connection {
        case .perDevice: max(1, group.count)
        case .shared(let count): min(max(1, count), max(1, group.count))
        }
    }

    /// `rampPosition` is where a group without `rampUp` starts in the fleet's default ramp;
    /// `stages` is the run's load profile, whose `devices` count `fleetCount` devices (those of
    /// the groups without stages of their own).
    static func connections(
        for group: DeviceGroup, in scenario: Scenario, settings: RunSettings,
        shard: Shard? = nil, rampPosition: Int = 0, stages runStages: [Stage] = [], fleetCount: Int = 0
    ) -> [ConnectionPlan] {
        let stages = group.stages.isEmpty ? runStages : group.stages
        let share = group.stages.isEmpty ? Double(max(1, group.count)) / Double(max(1, fleetCount)) : 1
        let jitter = group.jitter ?? .standard(deviceCount: group.count)
        let verify = VerifyPlan(group: group)
        let all = (1...max(1, group.count)).map { index in
            let id = group.id.render(name: group.name, index: index, id: nil)
            var device = DevicePlan(
                group: group.name, index: index, id: id,
                topic: group.topic.render(name: group.name, index: index, id: id),
                qos: group.qos, retain: group.retain, perSecond: group.publish.perSecond,
                sampleInterval: group.sample.map { 1 / $0.perSecond }, payload: group.payload,
                startDelay: DevicePlan.startDelay(
                    jitter: jitter.seconds(perSecond: group.publish.perSecond),
                    seed: settings.seed, deviceID: id), verify: verify,
                availability: group.availability.map {
                    .init(
                        topic: $0.topic.render(name: group.name, index: index, id: id), online: Array($0.online.utf8),
                        offline: Array($0.offline.utf8))
                })
            device.commands = group.commands.map { CommandPlan(commands: $0, name: group.name, index: index, id: id) }
            device.onChange = group.onChange
            device.profile = RateProfile(
                stages: stages, baseRate: group.publish.perSecond,
                presence: stages.setsDevices ? Presence(stages: stages, count: group.count, share: share, rank: index - 1) : nil)
            device.discovery = group.discovery.map {
                HomeAssistantDiscovery(
                    deviceID: id, group: group.name, topic: device.topic, payload: group.payload, availability: device.availability,
                    commands: device.commands, discovery: $0, version: settings.version)
            }
            return device
        }
        // Ids are rendered before sharding, so a device keeps its index, id and topic (and so
        // its seed and data) whichever shard runs it.
        let devices = shard.map { shard in all.filter { shard.contains(deviceID: $0.id) } } ?? all
        let rampPerSecond = group.rampUp?.perSecond ?? Defaults.rampUp
        let rampStart = group.rampUp == nil ? rampPosition : 0
        let broker = scenario.broker
        /// `device` fills the will topic's placeholders (`devices/{id}/status`); a shared
        /// connection has no one device, so its will names the group.
        func options(clientID: String, device: DevicePlan?) -> ClientOptions {
            clientOptions(
                scenario: scenario, settings: settings, clientID: clientID, group: group.name, index: device?.index ?? 0,
                id: device?.id ?? clientID,
                will: device?.availability.map { .init(topic: $0.topic, payload: $0.offline, qos: .atLeastOnce, retain: true) }
                    ?? broker.will.map { will in
                        var will = will
                        will.topic = Template(will.topic).render(name: group.name, index: device?.index ?? 0, id: device?.id ?? clientID)
                        return will
                    })
        }
        guard !devices.isEmpty else { return [] }
        let groups: [[DevicePlan]]
        let clientIDs: [String]
        /// Each connection's place in the group's ramp-up.
        let positions: [Int]
        switch group.connection {
        case .perDevice:
            groups = devices.map { [$0] }
            clientIDs = devices.map { group.clientID.render(name: group.name, index: $0.index, id: $0.id) }
            // As in the whole fleet: the shards together ramp up at the group's rate.
            positions = devices.map { $0.index - 1 }
        case .shared(let count):
            let count = min(max(1, count), devices.count)
            groups = (0..<count).map { slot in stride(from: slot, to: devices.count, by: count).map { devices[$0] } }
            let shardPart = shard.map { $0.count > 1 ? "-shard\($0.index)of\($0.count)" : "" } ?? ""
            clientIDs = (1...count).map { "\(scenario.name)-\(group.name)\(shardPart)-shared-\($0)" }
            positions = Array(0..<count)
        }
        return zip(groups, clientIDs).enumerated().map { slot, pair in
            var connection = ConnectionPlan(
                options: options(clientID: pair.1, device: pair.0.count == 1 ? pair.0[0] : nil), devices: pair.0, offline: scenario.offline,
                reconnect: broker.reconnect ?? ReconnectSettings(),
                ackTimeout: (settings.ackTimeout ?? broker.ackTimeout).map { AckTimeout(limit: $0, action: broker.onAckTimeout ?? .count) },
                startOffset: rampPerSecond.isFinite ? Double(rampStart + positions[slot]) / rampPerSecond : 0)
            // The stays follow from the seed and the client id alone, whichever shard runs it.
            connection.lifecycle = group.lifecycle.map { ($0, Seed(settings.seed).derive("devsim.lifecycle").derive(pair.1).value) }
            if let presence = pair.0[0].profile?.presence {
                connection.presence = presence
                // A fleet the stages grow from none opens as they bring each in; one in from the
                // start opens at its place in the ramp-up.
                if stages.devicesBefore(count: group.count) == 0 { connection.startOffset = presence.stretches.first?.on ?? 0 }
            }
            return connection
        }
    }

    /// The options of a connection to `scenario`'s broker, with the command line's overrides:
    /// a device's, a shared connection's, a subscriber's. `group`, `index` and `id` fill a
    /// user name's placeholders (ThingsBoard's access token as the user name: `"{id}-token"`).
    static func clientOptions(
        scenario: Scenario, settings: RunSettings, clientID: String, group: String, index: Int, id: String,
        will: Will?
    ) -> ClientOptions {
        let broker = scenario.broker
        let url = settings.url
        let transport = url?.scheme.transport ?? broker.transport ?? .tcp
        let tls = tls(of: scenario, settings: settings)
        let defaultPort = transport == .websockets ? (tls == nil ? Defaults.webSocketPort : Defaults.secureWebSocketPort) : Defaults.port
        var options = ClientOptions(
            host: url?.host ?? settings.host ?? broker.host ?? Defaults.host,
            port: Int32(url?.port ?? settings.port ?? broker.port ?? defaultPort),
            clientID: clientID,
            cleanSession: broker.cleanSession ?? Defaults.cleanSession,
            keepalive: broker.keepalive ?? Defaults.keepalive,
            protocolVersion: settings.mqttProtocol ?? broker.protocol ?? Defaults.mqttProtocol,
            username: settings.anonymous
                ? nil
                : (settings.username ?? url?.username ?? broker.username).map { Template($0).render(name: group, index: index, id: id) },
            password: settings.anonymous ? nil : settings.password ?? broker.password,
            will: will,
            tls: tls,
            maxInFlight: Int32(clamping: settings.maxInFlight))
        if transport == .websockets { options.webSocketPath = url?.path ?? broker.path ?? BrokerURL.defaultPath }
        return options
    }

    /// The TLS of the connections to `scenario`'s broker, `nil` for none. A URL's scheme says
    /// whether there is TLS; the file's `tls` still says with what.
    static func tls(of scenario: Scenario, settings: RunSettings) -> TLSSettings? {
        let broker = scenario.broker
        return settings.url.map { $0.scheme.isSecure ? broker.tls ?? TLSSettings() : nil } ?? broker.tls
    }
}

extension FleetPlan {
    /// Why a running fleet of this plan cannot become `next`, as a sentence; `nil` when it can.
    /// A load profile is fixed for the run (its length, its report): the scenario's stages and
    /// each group's own stay as they are. Under `devices` stages the groups' counts stay too:
    /// each device's presence is made from them, and the scenario's share the fleet's count
    /// among every group that follows them.
    package func profileChange(to next: FleetPlan) -> String? {
        let profile = { (stages: [Stage]) in stages.map(\.profile) }
        guard profile(stages) == profile(next.stages) else {
            return "the stages changed: a running load profile, its length and its report, cannot change; restart the run"
        }
        let groups = Dictionary(scenarios.flatMap(\.groups).map { ($0.name, $0) }) { first, _ in first }
        let nextGroups = next.scenarios.flatMap(\.groups).map { ($0.name, $0) }
        for (name, group) in nextGroups {
            guard let old = groups[name] else { continue }
            guard profile(old.stages) == profile(group.stages) else {
                return "device group '\(group.name)': its stages changed: a running load profile cannot change; restart the run"
            }
            if old.stages.setsDevices, old.count != group.count {
                return "device group '\(group.name)' follows 'devices' stages, which set how many of its devices are in: "
                    + "its count cannot change while it runs; restart the run"
            }
        }
        if stages.setsDevices {
            let following = { (groups: [(String, DeviceGroup)]) in
                groups.filter { $0.1.stages.isEmpty }.map { "\($0.0)=\($0.1.count)" }.sorted()
            }
            guard following(Array(groups)) == following(nextGroups) else {
                return "the scenario's 'devices' stages share the fleet's count among the groups that follow them: "
                    + "a reload cannot change those groups or their counts; restart the run"
            }
        }
        return nil
    }
}
