import MQTT

/// One message of a recording (`devsim record`): when it came, where, and its bytes exactly.
public struct RecordedMessage: Sendable, Equatable {
    /// Seconds from the start of the recording.
    public var time: Double
    public var topic: String
    public var qos: QoS
    public var retain: Bool
    public var payload: [UInt8]
    /// The line of the recording it is written on (from 1); 0 for a message made in code.
    public var line: Int

    public init(time: Double, topic: String, qos: QoS = .atMostOnce, retain: Bool = false, payload: [UInt8], line: Int = 0) {
        self.time = time
        self.topic = topic
        self.qos = qos
        self.retain = retain
        self.payload = payload
        self.line = line
    }

    /// The payload as text, when it is UTF-8; `nil` for binary payloads.
    public var text: String? { String(validating: payload, as: UTF8.self) }
}
