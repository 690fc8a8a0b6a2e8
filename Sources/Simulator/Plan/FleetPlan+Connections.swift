import MQTT
import Report
import Scenario
import Signals

/// A device group expanded into its connections, and the options of each.
extension FleetPlan {
    /// Connections of the whole group, every shard's together.
    static func connectionCount(of group: DeviceGroup) -> Int {
        if let sparkplug = group.sparkplug { return min(sparkplug.nodes, max(1, group.count)) }
        return switch group.connection {
        case .perDevice: max(1, group.count)
        case .shared(let count): min(max(1, count), max(1, group.count))
        }
    }

    /// `rampPosition` is where a group without `rampUp` starts in the fleet's default ramp;
    /// `stages` is the run's load profile, whose `devices` count `fleetCount` devices (those of
    /// the groups without stages of their own).
    static func connections(
        for group: DeviceGroup, in scenario: Scenario, settings: RunSettings,
        shard: Shard? = nil, rampPosition: Int = 0, stages runStages: [Stage] = [], fleetCount: Int = 0, scenarioSlot: Int = 0
    ) -> [ConnectionPlan] {
        let stages = group.stages.isEmpty ? runStages : group.stages
        let share = group.stages.isEmpty ? Double(max(1, group.count)) / Double(max(1, fleetCount)) : 1
        let jitter = group.jitter ?? .standard(deviceCount: group.count)
        let verify = VerifyPlan(group: group)
        // Made once for a group whose copies publish the recording as it is.
        let asRecorded = group.recording.flatMap { $0.recordedID == nil ? ReplayPlan(source: $0, id: nil) : nil }
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
            if let sparkplug = group.sparkplug {
                device.sparkplug = SparkplugNodePlan(nodes: sparkplug, index: sparkplug.node(ofDevice: index) + 1, group: group.name)
                device.topic = sparkplug.topic(ofDevice: index, id: id, group: group.name)
            }
            if scenario.broker.azureIoTHub != nil { device.commands = azureCommands(of: group, id: id) }
            device.onChange = group.onChange
            device.properties = group.properties?.render(name: group.name, index: index, id: id)
            device.profile = RateProfile(
                stages: stages, baseRate: group.publish.perSecond,
                presence: stages.setsDevices ? Presence(stages: stages, count: group.count, share: share, rank: index - 1) : nil)
            device.script = group.script
            if let recording = group.recording {
                replay(recording, asRecorded: asRecorded, into: &device, group: group, seed: settings.seed)
            }
            device.discovery = group.discovery.map {
                HomeAssistantDiscovery(
                    deviceID: id, group: group.name, topic: device.topic, payload: group.payload, availability: device.availability,
                    commands: device.commands, discovery: $0, version: settings.version)
            }
            return device
        }
        // Ids are rendered before sharding, so a device keeps its index, id and topic (and so
        // its seed and data) whichever shard runs it.
        // A Sparkplug node's devices stay together: the shard is the node's.
        let devices =
            shard.map { shard in
                all.filter { shard.contains(deviceID: group.sparkplug?.edgeNodeID(ofDevice: $0.index, group: group.name) ?? $0.id) }
            } ?? all
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
        if let sparkplug = group.sparkplug {
            // One connection an edge node, known by its id, its devices dealt as `node(ofDevice:)` says.
            let slots = Dictionary(grouping: devices) { sparkplug.node(ofDevice: $0.index) }.sorted { $0.key < $1.key }
            groups = slots.map(\.value)
            clientIDs = slots.map { slot, _ in
                group.clientID.render(name: group.name, index: slot + 1, id: sparkplug.edgeNodeID(slot + 1, group: group.name))
            }
            positions = slots.map(\.key)
        } else {
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
                let version = protocolVersion(of: scenario, settings: settings)
                clientIDs = (1...count).map { version.clientID("\(scenario.name)-\(group.name)\(shardPart)-shared-\($0)") }
                positions = Array(0..<count)
            }
        }
        return zip(groups, clientIDs).enumerated().map { slot, pair in
            // An edge node is known by its id: the templates of its identity take it as {id}, its
            // index as {index}; its will, the NDEATH, it sets before each CONNECT.
            let node = group.sparkplug.map { ($0, positions[slot] + 1) }
            var options =
                node.map { sparkplug, index in
                    clientOptions(
                        scenario: scenario, settings: settings, clientID: pair.1, group: group.name, index: index,
                        id: sparkplug.edgeNodeID(index, group: group.name), will: nil)
                } ?? options(clientID: pair.1, device: pair.0.count == 1 ? pair.0[0] : nil)
            place(
                &options, scenario: scenario, settings: settings, slot: scenarioSlot + positions[slot],
                key: node.map { $0.edgeNodeID($1, group: group.name) }
                    ?? (pair.0.count == 1 && group.connection == .perDevice ? pair.0[0].id : pair.1))
            // The id its options were made for, whose row of the credentials file they read.
            let identity = node.map { $0.edgeNodeID($1, group: group.name) } ?? (pair.0.count == 1 ? pair.0[0].id : pair.1)
            var connection = ConnectionPlan(
                options: options, devices: pair.0, offline: scenario.offline,
                reconnect: broker.reconnect ?? ReconnectSettings(),
                ackTimeout: (settings.ackTimeout ?? broker.ackTimeout).map { AckTimeout(limit: $0, action: broker.onAckTimeout ?? .count) },
                startOffset: rampPerSecond.isFinite ? Double(rampStart + positions[slot]) / rampPerSecond : 0)
            // The stays follow from the seed and the client id alone, whichever shard runs it.
            connection.sparkplug = node.map { SparkplugNodePlan(nodes: $0, index: $1, group: group.name) }
            connection.credentialsRow = credentialsRow(of: identity, scenario: scenario, settings: settings)
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
    /// a device's, a shared connection's, a subscriber's. Its identity is `id`'s: the user name,
    /// password, certificate and key are templates that `group`, `index` and `id` fill
    /// (ThingsBoard's access token as the user name: `"{id}-token"`), unless `id`'s row of the
    /// credentials file gives them. The command line's user name and password are every
    /// device's.
    static func clientOptions(
        scenario: Scenario, settings: RunSettings, clientID: String, group: String, index: Int, id: String,
        will: Will?
    ) -> ClientOptions {
        let broker = scenario.broker
        let url = settings.url
        let transport = url?.scheme.transport ?? broker.transport ?? .tcp
        let row = broker.credentials?.rows[id]
        func fill(_ text: String?) -> String? {
            text.map { Template($0).render(name: group, index: index, id: id, token: row?[.token]) }
        }
        let tls = tls(of: scenario, settings: settings).map { tls in
            var own = tls
            own.certificate = row?[.certificate] ?? fill(tls.certificate)
            own.key = row?[.key] ?? fill(tls.key)
            return own
        }
        let defaultPort = transport == .websockets ? (tls == nil ? Defaults.webSocketPort : Defaults.secureWebSocketPort) : Defaults.port
        var options = ClientOptions(
            host: url?.host ?? settings.host ?? broker.host ?? Defaults.host,
            port: Int32(url?.port ?? settings.port ?? broker.port ?? defaultPort),
            clientID: clientID,
            cleanSession: broker.cleanSession ?? Defaults.cleanSession,
            keepalive: broker.keepalive ?? Defaults.keepalive,
            protocolVersion: protocolVersion(of: scenario, settings: settings),
            username: settings.anonymous ? nil : fill(settings.username ?? url?.username) ?? row?[.username] ?? fill(broker.username),
            password: settings.anonymous ? nil : settings.password ?? row?[.password] ?? fill(broker.password),
            will: will,
            tls: tls,
            maxInFlight: Int32(clamping: settings.maxInFlight))
        if transport == .websockets { options.webSocketPath = url?.path ?? broker.path ?? BrokerURL.defaultPath }
        if let properties = broker.properties, options.protocolVersion == .v5 {
            connectProperties(properties, into: &options, group: group, index: index, id: id)
        }
        if let azure = broker.azureIoTHub {
            azureIoTHub(azure, into: &options, scenario: scenario, settings: settings, id: id, deviceKey: row?[.deviceKey])
        }
        return options
    }

    /// The MQTT version the connections to `scenario`'s broker speak: `--protocol`, the file's, or
    /// the default.
    static func protocolVersion(of scenario: Scenario, settings: RunSettings) -> ProtocolVersion {
        settings.mqttProtocol ?? scenario.broker.protocol ?? Defaults.mqttProtocol
    }

    /// Where the secrets of the connection made for `id` come from when its row of the
    /// credentials file gives one the command line does not override: that row.
    static func credentialsRow(of id: String, scenario: Scenario, settings: RunSettings) -> SourceLocation? {
        guard let file = scenario.broker.credentials, let row = file.rows[id], !settings.anonymous else { return nil }
        var overridden: Set<CredentialsFile.Column> = []
        if settings.username ?? settings.url?.username != nil { overridden.insert(.username) }
        if settings.password != nil { overridden.insert(.password) }
        guard row.cells.keys.contains(where: { !overridden.contains($0) }) else { return nil }
        return SourceLocation(file: file.path, line: row.line, column: 1)
    }

    /// The TLS of the connections to `scenario`'s broker, `nil` for none. A URL's scheme says
    /// whether there is TLS; the file's `tls` still says with what.
    static func tls(of scenario: Scenario, settings: RunSettings) -> TLSSettings? {
        let broker = scenario.broker
        return settings.url.map { $0.scheme.isSecure ? broker.tls ?? TLSSettings() : nil } ?? broker.tls
    }
}
