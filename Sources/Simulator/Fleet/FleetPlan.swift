import Mosquitto
import Scenario
import Signals

/// One simulated device, resolved: its templates filled in and its rates in numbers.
public struct DevicePlan: Sendable {
    public var group: String
    public var index: Int
    public var id: String
    public var topic: String
    public var qos: Int32
    public var retain: Bool
    public var perSecond: Double
    /// Seconds between sensor samples, `nil` for one sample per publish.
    public var sampleInterval: Double?
    public var payload: PayloadSpec
    /// Seconds from the connection's first CONNACK to the device's first tick: the group's
    /// `jitter`, 0 without one.
    public var startDelay: Double

    /// An offset in [0, `jitter`) that depends on the run's seed and the device's id alone, so
    /// a run with the same seed starts each device at the same point after its CONNACK.
    public static func startDelay(jitter: Double, seed: UInt64, deviceID: String) -> Double {
        guard jitter > 0, jitter.isFinite else { return 0 }
        var random = Seed(seed).derive("devsim.start-jitter").derive(deviceID).generator()
        return random.nextUnit() * jitter
    }
}

/// One MQTT connection and the devices that publish through it.
public struct ConnectionPlan: Sendable {
    public var options: ClientOptions
    public var devices: [DevicePlan]
    public var offline: OfflinePolicy
    public var reconnect: ReconnectSettings
    /// Seconds after the run's start at which the connection is opened (the group's ramp-up).
    public var startOffset: Double
}

/// The whole fleet of a run: every scenario's groups expanded into connections and devices.
public struct FleetPlan: Sendable {
    public var connections: [ConnectionPlan]
    /// Client ids that two connections would share, one message for each pair of device groups
    /// that clash, at the place the second group is written. A run must not start with any:
    /// a broker disconnects a client when another connects with its id, and the two would knock
    /// each other off for the whole run.
    public var clientIDConflicts: [Diagnostic]

    public var deviceCount: Int { connections.reduce(0) { $0 + $1.devices.count } }

    public init(scenarios: [Scenario], settings: RunSettings) {
        var connections: [ConnectionPlan] = []
        var owners: [String: Owner] = [:]
        var conflicts: [Diagnostic] = []
        var reported: Set<[String]> = []
        for scenario in scenarios {
            for group in scenario.groups {
                let owner = Owner(group: group.name, location: group.location
                                  ?? SourceLocation(file: scenario.file, line: 1, column: 1))
                let made = FleetPlan.connections(for: group, in: scenario, settings: settings)
                for connection in made {
                    // No client id: libmosquitto makes a random one.
                    guard let clientID = connection.options.clientID else { continue }
                    guard let first = owners[clientID] else {
                        owners[clientID] = owner
                        continue
                    }
                    guard reported.insert([first.location.description, owner.location.description]).inserted else { continue }
                    conflicts.append(FleetPlan.conflict(clientID, first: first, second: owner))
                }
                connections += made
            }
        }
        self.connections = connections
        clientIDConflicts = conflicts
    }

    /// The device group that first uses a client id.
    private struct Owner {
        var group: String
        var location: SourceLocation
    }

    private static func conflict(_ clientID: String, first: Owner, second: Owner) -> Diagnostic {
        let within = first.location == second.location
        let message = within
            ? "client id '\(clientID)' is used by more than one device of device group '\(second.group)'; "
                + "two clients with one id knock each other off the broker: put {id} or {index} in 'clientId'"
            : "client id '\(clientID)' of device group '\(second.group)' is also used by device group '\(first.group)' "
                + "at \(first.location); two clients with one id knock each other off the broker: "
                + "give the groups different names, or different 'clientId' templates"
        return Diagnostic(file: second.location.file, line: second.location.line, column: second.location.column,
                          message: message)
    }

    static func connections(for group: DeviceGroup, in scenario: Scenario, settings: RunSettings) -> [ConnectionPlan] {
        let devices = (1...max(1, group.count)).map { index in
            let id = group.id.render(name: group.name, index: index, id: nil)
            return DevicePlan(
                group: group.name, index: index, id: id,
                topic: group.topic.render(name: group.name, index: index, id: id),
                qos: Int32(group.qos), retain: group.retain, perSecond: group.publish.perSecond,
                sampleInterval: group.sample.map { 1 / $0.perSecond }, payload: group.payload,
                startDelay: DevicePlan.startDelay(jitter: group.jitter?.seconds(perSecond: group.publish.perSecond) ?? 0,
                                                  seed: settings.seed, deviceID: id))
        }
        let rampPerSecond = group.rampUp?.perSecond ?? .infinity
        let broker = scenario.broker
        /// `device` fills the will topic's placeholders (`devices/{id}/status`); a shared
        /// connection has no one device, so its will names the group.
        func options(clientID: String, device: DevicePlan?) -> ClientOptions {
            ClientOptions(
                host: settings.host ?? broker.host ?? "localhost",
                port: Int32(settings.port ?? broker.port ?? 1883),
                clientID: clientID,
                cleanSession: broker.cleanSession ?? true,
                keepalive: Int32((broker.keepalive ?? 60).rounded()),
                protocolVersion: broker.protocol.map(ClientOptions.ProtocolVersion.init) ?? .v311,
                username: settings.username ?? broker.username,
                password: settings.password ?? broker.password,
                will: broker.will.map { will in
                    let topic = Template(will.topic).render(name: group.name, index: device?.index ?? 0, id: device?.id ?? clientID)
                    return .init(topic: topic, payload: Array(will.message.utf8), qos: Int32(will.qos), retain: will.retain)
                },
                tls: broker.tls.map { .init(caFile: $0.ca, certificateFile: $0.certificate, keyFile: $0.key, insecure: $0.insecure) },
                maxInFlight: Int32(clamping: settings.maxInFlight))
        }
        let groups: [[DevicePlan]]
        let clientIDs: [String]
        switch group.connection {
        case .perDevice:
            groups = devices.map { [$0] }
            clientIDs = devices.map { group.clientID.render(name: group.name, index: $0.index, id: $0.id) }
        case .shared(let count):
            let count = min(max(1, count), devices.count)
            groups = (0..<count).map { slot in stride(from: slot, to: devices.count, by: count).map { devices[$0] } }
            clientIDs = (1...count).map { "\(scenario.name)-\(group.name)-shared-\($0)" }
        }
        return zip(groups, clientIDs).enumerated().map { position, pair in
            ConnectionPlan(
                options: options(clientID: pair.1, device: pair.0.count == 1 ? pair.0[0] : nil), devices: pair.0, offline: scenario.offline,
                reconnect: broker.reconnect ?? ReconnectSettings(),
                startOffset: rampPerSecond.isFinite ? Double(position) / rampPerSecond : 0)
        }
    }
}

extension ClientOptions.ProtocolVersion {
    init(_ version: MQTTProtocol) {
        switch version {
        case .mqtt31: self = .v31
        case .mqtt311: self = .v311
        case .mqtt5: self = .v5
        }
    }
}
