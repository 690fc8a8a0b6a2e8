import CMosquitto

/// The broker's answer to CONNECT: 0 accepts, anything else refuses. MQTT 3.1/3.1.1 return codes
/// (1–5) and MQTT 5 reason codes (128 and up) share this type; the raw value is kept either way.
package struct ConnackCode: Hashable, Sendable, CustomStringConvertible {
    package let rawValue: Int32

    package init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    package static let accepted = ConnackCode(rawValue: 0)
    /// MQTT 3.1.1 "bad user name or password".
    package static let badCredentials = ConnackCode(rawValue: 4)
    /// MQTT 3.1.1 "not authorised".
    package static let notAuthorized = ConnackCode(rawValue: 5)

    package var isAccepted: Bool { rawValue == 0 }

    /// A refusal of the client's credentials: MQTT 3.1.1's 4 (bad user name or password) and 5
    /// (not authorised), MQTT 5's 0x86 and 0x87.
    package var refusesCredentials: Bool { [4, 5, 0x86, 0x87].contains(rawValue) }

    /// A refusal another attempt with the same settings would get too: the protocol version, the
    /// client id, the credentials, the authentication method (MQTT 3.1.1's 1, 2, 4, 5; MQTT 5's
    /// 0x84 to 0x87, 0x8C). A server unavailable, busy, over its quota or its connection rate
    /// (3, 0x88, 0x89, 0x97, 0x9F) may take the next.
    package var isLasting: Bool { [1, 2, 4, 5, 0x84, 0x85, 0x86, 0x87, 0x8C].contains(rawValue) }

    /// The reason in words: `mosquitto_connack_string` for MQTT 3 codes,
    /// `mosquitto_reason_string` for MQTT 5 reason codes.
    package var description: String {
        if rawValue >= 128 {
            return String(cString: mosquitto_reason_string(rawValue))
        }
        return String(cString: mosquitto_connack_string(rawValue))
    }
}
