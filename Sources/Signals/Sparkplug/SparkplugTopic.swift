/// An edge node's place in the Sparkplug topic namespace: `spBv1.0/GROUP/TYPE/NODE[/DEVICE]`.
package struct SparkplugTopic: Equatable, Sendable {
    package static let namespace = "spBv1.0"

    package let groupID: String
    package let edgeNodeID: String

    package init(groupID: String, edgeNodeID: String) {
        self.groupID = groupID
        self.edgeNodeID = edgeNodeID
    }

    /// The topic of a node message, or with `device` of a device's.
    package func topic(_ type: SparkplugMessageType, device: String? = nil) -> String {
        let node = "\(Self.namespace)/\(groupID)/\(type.rawValue)/\(edgeNodeID)"
        guard let device else { return node }
        return node + "/" + device
    }

    /// The topic of primary host application `host`'s STATE (Sparkplug 3.0, 4.1.2):
    /// `spBv1.0/STATE/HOST`.
    package static func state(ofHost host: String) -> String {
        "\(namespace)/STATE/\(host)"
    }

    /// The filter of every message of the node and of its devices: `spBv1.0/GROUP/+/NODE/#`.
    package var nodeFilter: String { "\(Self.namespace)/\(groupID)/+/\(edgeNodeID)/#" }

    /// The topics of the node's messages that carry its seq, every one but its NDEATH and the
    /// commands a host sends it: NDATA, and each of `devices`' DBIRTH, DDATA and DDEATH; the
    /// NBIRTH's, which starts the seq again, is `topic(.nodeBirth)`.
    package func sequencedTopics(devices: [String]) -> [String] {
        [topic(.nodeData)] + devices.flatMap { device in [.deviceBirth, .deviceData, .deviceDeath].map { topic($0, device: device) } }
    }

    /// The filters a node subscribes to for its commands and its devices'.
    package var commandFilters: [String] {
        [topic(.nodeCommand), topic(.deviceCommand, device: "+")]
    }

    /// What a command topic of this node says: NCMD (device nil) or DCMD and its device; nil for
    /// any other topic.
    package func command(in topic: String) -> (type: SparkplugMessageType, device: String?)? {
        let node = self.topic(.nodeCommand)
        if topic == node { return (.nodeCommand, nil) }
        let prefix = self.topic(.deviceCommand) + "/"
        guard topic.hasPrefix(prefix) else { return nil }
        let device = topic.dropFirst(prefix.count)
        guard !device.isEmpty, !device.contains("/") else { return nil }
        return (.deviceCommand, String(device))
    }
}
