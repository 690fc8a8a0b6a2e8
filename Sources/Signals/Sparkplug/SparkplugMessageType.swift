/// The message types of the Sparkplug topic namespace (4.1, `spBv1.0/GROUP/TYPE/NODE[/DEVICE]`).
package enum SparkplugMessageType: String, Sendable, CaseIterable {
    case nodeBirth = "NBIRTH"
    case nodeDeath = "NDEATH"
    case deviceBirth = "DBIRTH"
    case deviceDeath = "DDEATH"
    case nodeData = "NDATA"
    case deviceData = "DDATA"
    case nodeCommand = "NCMD"
    case deviceCommand = "DCMD"

    /// Whether the message is about one device, whose id ends its topic.
    package var isDevice: Bool {
        switch self {
        case .deviceBirth, .deviceDeath, .deviceData, .deviceCommand: true
        default: false
        }
    }
}
