import Signals

/// `sparkplug:` of a device group: its devices are Sparkplug B devices under `nodes` edge nodes,
/// each node one MQTT connection (its NDEATH its will), the devices dealt over the nodes in turn
/// as a shared connection deals them.
public struct SparkplugNodes: Sendable, Equatable {
    /// The Sparkplug Group ID, the topics' second level.
    public var groupID: String
    /// Each node's Edge Node ID, filled with `{name}` (the device group's) and `{index}` (the
    /// node's, 1-based).
    public var edgeNodeID: Template
    public var nodes: Int
    package var reporting: SparkplugReporting
    /// With a Sparkplug 3.0 primary host: the nodes publish their births only while its STATE
    /// says it is online.
    public var primaryHost: String?

    package init(
        groupID: String, edgeNodeID: Template = SparkplugNodes.defaultEdgeNodeID, nodes: Int = 1,
        reporting: SparkplugReporting = .byException(deadband: 0), primaryHost: String? = nil
    ) {
        self.groupID = groupID
        self.edgeNodeID = edgeNodeID
        self.nodes = nodes
        self.reporting = reporting
        self.primaryHost = primaryHost
    }

    package static let defaultEdgeNodeID = Template("{name}-{index}")

    /// Node `index`'s Edge Node ID (1-based) in device group `group`.
    package func edgeNodeID(_ index: Int, group: String) -> String {
        edgeNodeID.render(name: group, index: index, id: nil)
    }

    /// The Edge Node ID of the node of the device of index `index` (1-based).
    package func edgeNodeID(ofDevice index: Int, group: String) -> String {
        edgeNodeID(node(ofDevice: index) + 1, group: group)
    }

    /// The DDATA topic of the device of index `index` and id `id`.
    package func topic(ofDevice index: Int, id: String, group: String) -> String {
        SparkplugTopic(groupID: groupID, edgeNodeID: edgeNodeID(ofDevice: index, group: group)).topic(.deviceData, device: id)
    }

    /// The node (0-based) of the device of index `index` (1-based): the devices are dealt in
    /// turn, as a shared connection deals them, so every node has as many as the next, or one
    /// more.
    package func node(ofDevice index: Int) -> Int {
        (index - 1) % max(1, nodes)
    }
}

extension SparkplugNodes {
    /// The devices' DDATA topics, `spBv1.0/GROUP/DDATA/NODE/{id}`, with the node's id still a
    /// template: a Sparkplug group's `topic`, which its plan fills node by node.
    package var dataTopic: Template {
        Template(
            "\(SparkplugTopic.namespace)/\(Template.escaped(groupID))/\(SparkplugMessageType.deviceData.rawValue)/\(edgeNodeID.source)/{id}"
        )
    }
}
