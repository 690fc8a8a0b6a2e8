import MQTT
import Scenario
import Signals

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
    /// The edge node the connection is, for a Sparkplug group; `nil` for any other.
    package var sparkplug: SparkplugNodePlan? = nil
    /// The connection's device group: an index into `FleetPlan.groups`.
    public var group = 0
    /// The row of the credentials file its secrets come from (`broker.credentials`), which a
    /// refusal of them names; `nil` when the templates or the command line give them.
    package var credentialsRow: SourceLocation? = nil
}
