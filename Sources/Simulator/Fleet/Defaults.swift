import MQTT

/// What a run uses where neither a scenario nor the command line says: each default is defined
/// here once, for the plan, the run's settings and the command line's options and help.
public enum Defaults {
    public static let host = "localhost"
    /// MQTT's registered port.
    public static let port = 1883
    /// MQTT over WebSockets without a port: HTTP's, and HTTPS's with TLS.
    public static let webSocketPort = 80
    public static let secureWebSocketPort = 443
    /// Between PINGREQs when the connection is otherwise idle.
    package static let keepalive = Duration.seconds(60)
    package static let cleanSession = true
    package static let mqttProtocol = ProtocolVersion.v311
    /// After which a run that never got a CONNACK gives up (exit 3).
    public static let connectTimeout = Duration.seconds(30)
    /// How long one connection attempt waits for its CONNACK.
    public static let connackTimeout = Duration.seconds(10)
    /// What in-flight QoS 1/2 messages get to be acknowledged when the run ends.
    public static let drainTimeout = Duration.seconds(5)
    /// Between status lines.
    public static let statsInterval = Duration.seconds(5)
    /// Between the points of the report's timeline.
    public static let timelineInterval = Duration.seconds(1)
    /// Unacknowledged QoS 1/2 messages a connection may have at once.
    public static let maxInFlight = 16
    /// Connections a second that the groups without a `rampUp` open, all of them together. A
    /// fleet opened at once overflows a broker's listen backlog (mosquitto's is 100): 1,000
    /// connections in about 60 ms measured SYN retransmits and a last CONNACK 1.3–1.9 s late.
    /// 1,000 a second opens the 1,000 in a second, and a handful at once.
    public static let rampUp = 1000.0
    /// `run --find-capacity`: each step measured this long, after this long at its rate. 15 s
    /// holds 15 timeline points, enough for a p99 of a few thousand messages a step.
    public static let capacityStep = Duration.seconds(15)
    public static let capacityWarmUp = Duration.seconds(5)
}
