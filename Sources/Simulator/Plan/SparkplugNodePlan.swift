import Scenario
import Signals

/// The Sparkplug edge node a connection is: its place in the topic namespace, how its devices
/// report, and the primary host it waits for.
package struct SparkplugNodePlan: Sendable, Equatable {
    package var topic: SparkplugTopic
    package var reporting: SparkplugReporting
    /// The primary host whose STATE says when births may go out; `nil` for none.
    package var primaryHost: String?

    /// Node `index` (1-based) of device group `group`'s `nodes`.
    init(nodes: SparkplugNodes, index: Int, group: String) {
        topic = SparkplugTopic(groupID: nodes.groupID, edgeNodeID: nodes.edgeNodeID(index, group: group))
        reporting = nodes.reporting
        primaryHost = nodes.primaryHost
    }

    /// The first alias of each of `devices`' metrics, unique across the node (3.0, 6.4.2: an
    /// alias names one metric of the node's births): device by device, from 1 on, as many as
    /// each has metrics. The node's own metrics (bdSeq, Node Control/Rebirth) go by name.
    static func firstAliases(of devices: [DevicePlan]) -> [UInt64] {
        var next: UInt64 = 1
        return devices.map { device in
            defer { next += UInt64(device.payload.sparkplugMetricNames.count) }
            return next
        }
    }
}
