/// The MQTT version a connection speaks: its raw value is the protocol level its CONNECT
/// carries (3, 4, 5), which is also libmosquitto's `MQTT_PROTOCOL_V…`.
public enum ProtocolVersion: Int32, Sendable, CaseIterable {
    case v31 = 3
    case v311 = 4
    case v5 = 5

    /// How scenarios and the command line name it: `mqtt31`, `mqtt311`, `mqtt5`.
    public var name: String {
        switch self {
        case .v31: "mqtt31"
        case .v311: "mqtt311"
        case .v5: "mqtt5"
        }
    }

    /// The version called `name` (`mqtt311`), or `nil`.
    public init?(name: String) {
        guard let version = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = version
    }
}
