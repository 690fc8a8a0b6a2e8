import CMosquitto

/// An MQTT 5 reason code, as a PUBACK, PUBREC, SUBACK or the broker's DISCONNECT carries it: below
/// 0x80 a success, from 0x80 on a failure. A SUBACK to an MQTT 3 client has 0x80 alone for "no".
package struct ReasonCode: Hashable, Sendable, CustomStringConvertible {
    package let rawValue: UInt8

    package init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    package static let success = ReasonCode(rawValue: 0)
    /// A DISCONNECT's: the broker publishes the will as for a connection lost (MQTT 5, 3.14.2.1).
    package static let disconnectWithWill = ReasonCode(rawValue: 0x04)

    /// Whether it refuses what it answers: 0x80 and up.
    @inline(__always) package var isFailure: Bool { rawValue >= 0x80 }

    /// The reason in libmosquitto's words: `mosquitto_reason_string`.
    package var words: String { String(cString: mosquitto_reason_string(Int32(rawValue))) }

    /// `0x87`, as the specification writes codes.
    package var hex: String {
        let digits = String(rawValue, radix: 16, uppercase: true)
        return "0x" + (digits.count < 2 ? "0" : "") + digits
    }

    /// `Not authorized (0x87)`.
    package var description: String { "\(words) (\(hex))" }
}
