import MQTT

/// What a run uses where neither a scenario nor the command line says: each default is defined
/// here once, for the plan, the run's settings and the command line's options and help.
public enum Defaults {
    public static let host = "localhost"
    /// MQTT's registered port.
    public static let port = 1883
    /// Seconds between PINGREQs when the connection is otherwise idle.
    public static let keepalive = 60.0
    public static let cleanSession = true
    public static let mqttProtocol = ProtocolVersion.v311
    /// Seconds after which a run that never got a CONNACK gives up (exit 3).
    public static let connectTimeout = 30.0
    /// Seconds one connection attempt waits for its CONNACK.
    public static let connackTimeout = 10.0
    /// Seconds in-flight QoS 1/2 messages get to be acknowledged when the run ends.
    public static let drainTimeout = 5.0
    /// Seconds between status lines.
    public static let statsInterval = 5.0
    /// Unacknowledged QoS 1/2 messages a connection may have at once.
    public static let maxInFlight = 16
}
