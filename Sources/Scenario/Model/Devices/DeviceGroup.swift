import MQTT
import Signals

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
    /// Its devices are Sparkplug B devices under edge nodes, which name their topics.
    public var sparkplug: SparkplugNodes?
    /// The MQTT 5 properties of its devices' messages (`properties:`).
    package var properties: MessageProperties?
    /// Its devices replay a recording (`recording:`): its `topic`, `publish` and `payload` are
    /// then stand-ins made from the recording, which says what is sent and when.
    public var recording: RecordingSource?
    /// Its devices' logic, in Lua (`script:`): hooks devsim calls at their start, each tick, each
    /// command and each CONNACK.
    package var script: DeviceScript?

    package init(
        name: String, count: Int = 1, id: Template, clientID: Template, topic: Template,
        sample: Rate? = nil, publish: Rate, qos: QoS = .atMostOnce, retain: Bool = false,
        connection: ConnectionMode = .perDevice, rampUp: Rate? = nil, payload: PayloadSpec,
        jitter: StartJitter? = nil, lifecycle: Lifecycle? = nil, stages: [Stage] = [], location: SourceLocation? = nil,
        verify: VerifyFields? = nil,
        availability: Availability? = nil, discovery: Discovery? = nil, commands: Commands? = nil, onChange: OnChange? = nil,
        sparkplug: SparkplugNodes? = nil
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
        self.sparkplug = sparkplug
    }
}
