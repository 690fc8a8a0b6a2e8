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
    /// The edge node it is a device of, for a Sparkplug group: its topics are the node's, its
    /// ticks DDATA.
    package var sparkplug: SparkplugNodePlan? = nil
    /// Its rate over the run under its load profile (its group's `stages`, or the scenario's),
    /// and when it is in under `devices` stages; `nil` for a steady rate.
    package var profile: RateProfile? = nil
    /// The MQTT 5 properties of its every telemetry message (its group's `properties`), filled in.
    package var properties: PublishProperties? = nil
    /// What it sends and when, for a device that replays a recording (its group's `recording`):
    /// its topics are the replay's, its `topic` the first of them.
    package var replay: ReplayPlan? = nil
    /// Its logic in Lua (its group's `script`): its ticks and commands go through the script's
    /// hooks.
    package var script: DeviceScript? = nil

    /// Whether the device says its state at a CONNACK, beside its schedule (issue 25, item 5): a
    /// dashboard shows it (`discovery`, `availability`, `commands`), it has a schedule (not
    /// `publish: max`), and its next tick is not due by then (`tickIsDue`), which would be that
    /// state. The run asks at each CONNACK, the dry run and `sample` at the first, so that they
    /// show what the run publishes.
    package func saysStateAtConnect(tickIsDue: Bool) -> Bool {
        (discovery != nil || availability != nil || commands != nil) && perSecond.isFinite && !tickIsDue && replay == nil
    }

    /// `{topic}/{field}` for each field in the per-field style (`PayloadStyle.perField`), or a
    /// replay's topics; empty for the other styles, whose messages go to `topic`.
    package var fieldTopics: [String] {
        if let replay { return replay.topics }
        return payload.style == .perField ? payload.fields.map { topic + "/" + $0.name } : []
    }

    /// Whether the message on each of `fieldTopics` is retained: the group's `retain`, or for a
    /// replay each topic's as recorded.
    package var fieldRetains: [Bool] {
        replay?.retains ?? Array(repeating: retain, count: fieldTopics.count)
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
