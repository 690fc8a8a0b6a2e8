/// An MQTT quality of service: its raw value is the protocol's (and libmosquitto's) 0, 1 or 2.
public enum QoS: Int32, Sendable, CaseIterable, Comparable {
    /// Sent once, never acknowledged: lost without a trace if its connection breaks.
    case atMostOnce = 0
    /// Acknowledged by a PUBACK; resent until it is, so it may arrive twice.
    case atLeastOnce = 1
    /// Acknowledged by the PUBREC, PUBREL, PUBCOMP exchange: arrives once.
    case exactlyOnce = 2

    /// Whether the broker acknowledges it (QoS 1 and 2). Inlinable: the publish path asks it of
    /// every message (not inlined, it cost 29 instructions a message: callgrind, publish: max).
    @inlinable package var isAcknowledged: Bool { self != .atMostOnce }

    public static func < (lhs: QoS, rhs: QoS) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension QoS: CustomStringConvertible {
    /// `0`, `1` or `2`, as scenarios write it.
    public var description: String { String(rawValue) }
}
