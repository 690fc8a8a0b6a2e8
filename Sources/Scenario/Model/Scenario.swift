import MQTT
import Signals

/// A loaded, validated scenario file.
public struct Scenario: Sendable {
    public var name: String
    /// The file it was loaded from, as given on the command line.
    public var file: String
    public var broker: BrokerSettings
    package var offline: OfflinePolicy
    public var groups: [DeviceGroup]
    /// `control.topic`: commands for the running fleet arrive here over MQTT.
    package var controlTopic: String?
    /// The load profile every group's rate follows (`stages:`); empty for the groups' own rates.
    public var stages: [Stage] = []
    /// The subscriber groups (`subscribers:`): connections of their own that count what the
    /// broker sends them.
    public var subscribers: [SubscriberGroup] = []
    /// The closed-loop check's own identity on the broker (`verify:`); `nil` for the devices'.
    package var verify: VerifierSettings?
    /// Where each setting that names a TLS file is written, by the setting's path
    /// (`broker.tls.ca`): for problems with the file itself, found when it is read before a run.
    package var fileLocations: [String: SourceLocation] = [:]

    package init(
        name: String, file: String, broker: BrokerSettings = .init(),
        offline: OfflinePolicy = .drop, groups: [DeviceGroup]
    ) {
        self.name = name
        self.file = file
        self.broker = broker
        self.offline = offline
        self.groups = groups
    }
}

/// Where and how to connect. Every field is optional: flags and environment override the file,
/// and the simulator supplies defaults for what nobody set.
public struct BrokerSettings: Sendable, Equatable {
    public var host: String?
    public var port: Int?
    public var `protocol`: ProtocolVersion?
    package var keepalive: Duration?
    package var cleanSession: Bool?
    public var username: String?
    public var password: String?
    package var tls: TLSSettings?
    package var will: Will?
    package var reconnect: ReconnectSettings?
    /// How long a QoS 1/2 message may wait for its PUBACK or PUBCOMP before it counts as timed
    /// out; `nil` for no limit.
    package var ackTimeout: Duration?
    /// What a timed-out message does to its connection; `nil` means `.count`.
    package var onAckTimeout: AckTimeoutAction?
    /// TCP (nil) or WebSockets, from `transport` or a `url`.
    package var transport: BrokerTransport?
    /// The WebSocket's path, from `path` or a ws:// `url`.
    package var path: String?

    package init(
        host: String? = nil, port: Int? = nil, protocol: ProtocolVersion? = nil,
        keepalive: Duration? = nil, cleanSession: Bool? = nil, username: String? = nil,
        password: String? = nil, tls: TLSSettings? = nil, will: Will? = nil,
        reconnect: ReconnectSettings? = nil, ackTimeout: Duration? = nil, onAckTimeout: AckTimeoutAction? = nil
    ) {
        self.host = host
        self.port = port
        self.protocol = `protocol`
        self.keepalive = keepalive
        self.cleanSession = cleanSession
        self.username = username
        self.password = password
        self.tls = tls
        self.will = will
        self.reconnect = reconnect
        self.ackTimeout = ackTimeout
        self.onAckTimeout = onAckTimeout
    }
}

package struct TLSSettings: Sendable, Equatable {
    /// CA certificate file, resolved relative to the scenario file; without one, the system's
    /// trusted certificates.
    package var ca: String?
    /// Client certificate and key files, for brokers that require them.
    package var certificate: String?
    package var key: String?
    /// Accept any certificate, unverified: for self-signed test brokers.
    package var insecure: Bool

    package init(ca: String? = nil, certificate: String? = nil, key: String? = nil, insecure: Bool = false) {
        self.ca = ca
        self.certificate = certificate
        self.key = key
        self.insecure = insecure
    }
}

package struct Will: Sendable, Equatable {
    package var topic: String
    package var message: String
    package var qos: QoS
    package var retain: Bool

    package init(topic: String, message: String, qos: QoS = .atMostOnce, retain: Bool = false) {
        self.topic = topic
        self.message = message
        self.qos = qos
        self.retain = retain
    }
}

/// Backoff between reconnection attempts: `initial` doubling up to `max`.
package struct ReconnectSettings: Sendable, Equatable {
    package var initial: Duration
    package var max: Duration

    package init(initial: Duration = .seconds(1), max: Duration = .seconds(64)) {
        self.initial = initial
        self.max = max
    }
}

/// `broker.onAckTimeout`: what a QoS 1/2 message that waited longer than `ackTimeout` for its
/// acknowledgement does to its connection.
package enum AckTimeoutAction: String, Sendable, CaseIterable {
    /// Counted (`ackTimeouts`) and logged; the connection waits on.
    case count
    /// Counted, and the connection is dropped and made again, so that libmosquitto resends the
    /// message: the only resend MQTT allows within a session.
    case reconnect
}

/// What happens to the ticks that fall while a device's connection is down.
package enum OfflinePolicy: Sendable, Equatable {
    /// Skipped and counted.
    case drop
    /// Kept in order up to the bounds, oldest dropped first, flushed after the next CONNACK.
    case buffer(maxMessages: Int, maxBytes: Int)

    package static let defaultMaxMessages = 1024
    package static let defaultMaxBytes = 64 * 1024 * 1024
}

/// One `devices:` entry: `count` devices that share a description.
public struct DeviceGroup: Sendable {
    public var name: String
    public var count: Int
    /// Filled per device with `{name}`, `{index}` (1-based).
    public var id: Template
    /// Filled per device with `{name}`, `{index}`, `{id}`.
    package var clientID: Template
    public var topic: Template
    /// How often the sensor models advance; `nil` means once per publish.
    public var sample: Rate?
    public var publish: Rate
    public var qos: QoS
    public var retain: Bool
    public var connection: ConnectionMode
    /// How fast the group's connections are opened; `nil` means all at once.
    package var rampUp: Rate?
    package var payload: PayloadSpec
    /// How far each device's first tick may be put off after its connection's CONNACK, so the
    /// group does not publish in lock-step; `nil` means not at all.
    public var jitter: StartJitter?
    /// Each connection's comings and goings (`lifecycle`); `nil` to stay up.
    public var lifecycle: Lifecycle?
    /// The group's own load profile (`stages:`); empty to follow the scenario's, if any.
    public var stages: [Stage] = []
    /// Where the group is written (the file may be one the scenario includes); `nil` for a group
    /// made in code.
    public var location: SourceLocation?
    /// The payload fields `run --verify` reads; `nil` when the group does not say (the
    /// defaults, `seq` and `ts`, are then looked for).
    public var verify: VerifyFields?
    /// Each device says whether it is there, retained, on a topic of its own.
    package var availability: Availability?
    /// Each device announces its fields to a dashboard that discovers them (Home Assistant).
    package var discovery: Discovery?
    /// Each device listens for commands to its fields.
    package var commands: Commands?
    /// Each tick is sent only when a watched field changed, or the heartbeat is due.
    package var onChange: OnChange?

    package init(
        name: String, count: Int = 1, id: Template, clientID: Template, topic: Template,
        sample: Rate? = nil, publish: Rate, qos: QoS = .atMostOnce, retain: Bool = false,
        connection: ConnectionMode = .perDevice, rampUp: Rate? = nil, payload: PayloadSpec,
        jitter: StartJitter? = nil, lifecycle: Lifecycle? = nil, stages: [Stage] = [], location: SourceLocation? = nil,
        verify: VerifyFields? = nil,
        availability: Availability? = nil, discovery: Discovery? = nil, commands: Commands? = nil, onChange: OnChange? = nil
    ) {
        self.name = name
        self.count = count
        self.id = id
        self.clientID = clientID
        self.topic = topic
        self.sample = sample
        self.publish = publish
        self.qos = qos
        self.retain = retain
        self.connection = connection
        self.rampUp = rampUp
        self.payload = payload
        self.jitter = jitter
        self.lifecycle = lifecycle
        self.stages = stages
        self.location = location
        self.verify = verify
        self.availability = availability
        self.discovery = discovery
        self.commands = commands
        self.onChange = onChange
    }
}

/// `discovery: homeassistant` of a device group: each device announces its fields as Home
/// Assistant entities, retained, under `prefix`; see `HomeAssistantDiscovery` in Simulator.
package struct Discovery: Sendable, Equatable {
    package var prefix = Discovery.defaultPrefix
    /// The `device` block's words; by default devsim's name and the group's.
    package var manufacturer: String?
    package var model: String?

    package static let defaultPrefix = "homeassistant"
    package static let types = ["homeassistant"]
}

/// `onChange: { fields: [door_open], heartbeat: 10m }` of a device group (or `publish: onChange`,
/// which looks once a second and watches every field that holds a state: a boolean, text, a
/// `dwell`): a tick is sent when a watched field's value differs from the last sent, or when the
/// heartbeat has passed since; otherwise it counts as `unchanged`.
package struct OnChange: Sendable, Equatable {
    /// The top-level fields watched.
    package var fields: [String]
    /// Seconds after which a tick is sent however unchanged.
    package var heartbeat: Double

    package init(fields: [String], heartbeat: Double = OnChange.defaultHeartbeat) {
        self.fields = fields
        self.heartbeat = heartbeat
    }

    package static let defaultHeartbeat = 300.0
}

/// `commands: { topic: "devices/{id}/set" }` of a device group: each device subscribes to its
/// topic, after every CONNACK, and what arrives sets its fields (those with a `command:`).
/// `{field}` as a level of the topic takes one field's bare value (`devices/{id}/set/{field}`,
/// as Home Assistant sends); `{requestId}` as a level names a request, answered on `response`
/// with the same id (ThingsBoard's `v1/devices/me/rpc/request/{requestId}`).
package struct Commands: Sendable, Equatable {
    package var topic: Template
    package var response: Template?

    package init(topic: Template, response: Template? = nil) {
        self.topic = topic
        self.response = response
    }

    /// The placeholders a command topic takes besides a device's.
    package static let placeholders = ["field", "requestId"]
}

/// `availability:` of a device group, as dashboards watch devices: `online`, retained at QoS 1,
/// after every CONNACK and before any telemetry; `offline` as the will, and published before a
/// clean DISCONNECT (the end of a run, a pause), which suppresses the will.
package struct Availability: Sendable, Equatable {
    /// Filled per device: `devices/{id}/status`.
    package var topic: Template
    package var online: String
    package var offline: String

    package static let defaultOnline = "online"
    package static let defaultOffline = "offline"
}

/// `verify: { sequence: seq, timestamp: ts }`: the payload fields the closed-loop check of
/// `run --verify` reads: a `counter` numbering the messages, and a `timestamp` (s, ms, us or ns)
/// of when each was made. A field may sit in a nested object; the first field of that name in
/// the payload is the one read.
public struct VerifyFields: Sendable, Equatable {
    package var sequence: String
    package var timestamp: String

    public static let defaultSequence = "seq"
    public static let defaultTimestamp = "ts"

    public init(sequence: String = VerifyFields.defaultSequence, timestamp: String = VerifyFields.defaultTimestamp) {
        self.sequence = sequence
        self.timestamp = timestamp
    }

    /// The first field called `name`, depth first in payload order, nested objects included:
    /// the one whose `"name":` comes first in the encoded payload.
    package static func field(named name: String, in fields: [FieldSpec]) -> FieldSpec? {
        for field in fields {
            if field.name == name, field.generator != nil { return field }
            if let members = field.fields, let found = Self.field(named: name, in: members) { return found }
        }
        return nil
    }
}

/// The `jitter` of a device group: each device's first tick is put off by an offset in
/// [0, bound) fixed by the run's seed and the device's id.
public enum StartJitter: Sendable, Equatable {
    /// Up to this many seconds; `none` (or `0s`) is `upTo(0)`: every device ticks at its
    /// CONNACK, a deliberate thundering herd.
    case upTo(Double)
    /// Up to one publish interval: the group's ticks spread evenly over each interval.
    case auto

    /// What a group that does not say gets: `auto` for a group of several devices, since real
    /// devices are not synchronised (1,000 devices at 10 Hz in step measured a lateness p99 of
    /// 4.5–4.8 ms against 0.58 ms spread); nothing for one device, which has none to be out of
    /// step with, so a one-device run publishes at its first CONNACK.
    public static func standard(deviceCount: Int) -> StartJitter { deviceCount > 1 ? .auto : .upTo(0) }

    /// The bound in seconds for a device publishing `perSecond` times a second.
    public func seconds(perSecond: Double) -> Double {
        switch self {
        case .upTo(let seconds): seconds
        case .auto: perSecond > 0 && perSecond.isFinite ? 1 / perSecond : 0
        }
    }
}

/// A place in a scenario file, for messages about what was written there.
public struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    /// 1-based.
    public var line: Int
    /// 1-based.
    package var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `FILE:LINE:COLUMN`.
    public var description: String { "\(file):\(line):\(column)" }
}

public enum ConnectionMode: Sendable, Equatable {
    /// One MQTT connection per device.
    case perDevice
    /// The group's devices multiplexed over this many connections.
    case shared(Int)
}
