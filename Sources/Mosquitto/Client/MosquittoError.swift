import CMosquitto
import Glibc

/// A libmosquitto result code other than success. Wraps the raw value, so codes this file does not
/// name still survive with the library's own text.
public struct MosquittoError: Error, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    /// `errno` at the time of the failure, kept for `MOSQ_ERR_ERRNO`, whose meaning lives there.
    package let systemErrno: Int32
    /// The reason of the DISCONNECT with which an MQTT 5 broker ended the connection; the code is
    /// then `connectionLost` (see `disconnected(by:)`).
    package private(set) var brokerReason: ReasonCode?

    public init(rawValue: Int32, systemErrno: Int32 = 0) {
        self.rawValue = rawValue
        self.systemErrno = systemErrno
    }

    /// The broker ended the connection with a DISCONNECT giving `reason`. libmosquitto reports
    /// it through `on_disconnect` as the bare reason code, where its own error codes go too.
    package static func disconnected(by reason: ReasonCode) -> MosquittoError {
        var error = MosquittoError.connectionLost
        error.brokerReason = reason
        return error
    }

    /// The library's text for the code (`mosquitto_strerror`), or the system's for `MOSQ_ERR_ERRNO`.
    public var description: String {
        if let brokerReason { return "the broker sent DISCONNECT: \(brokerReason)" }
        if rawValue == MosquittoError.errno.rawValue, systemErrno != 0, let text = strerror(systemErrno) {
            return String(cString: text)
        }
        return String(cString: mosquitto_strerror(rawValue))
    }

    public static func == (lhs: MosquittoError, rhs: MosquittoError) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    package static let noMemory = MosquittoError(rawValue: Int32(MOSQ_ERR_NOMEM.rawValue))
    public static let `protocol` = MosquittoError(rawValue: Int32(MOSQ_ERR_PROTOCOL.rawValue))
    public static let invalid = MosquittoError(rawValue: Int32(MOSQ_ERR_INVAL.rawValue))
    public static let noConnection = MosquittoError(rawValue: Int32(MOSQ_ERR_NO_CONN.rawValue))
    package static let connectionRefused = MosquittoError(rawValue: Int32(MOSQ_ERR_CONN_REFUSED.rawValue))
    package static let connectionLost = MosquittoError(rawValue: Int32(MOSQ_ERR_CONN_LOST.rawValue))
    package static let tls = MosquittoError(rawValue: Int32(MOSQ_ERR_TLS.rawValue))
    package static let payloadSize = MosquittoError(rawValue: Int32(MOSQ_ERR_PAYLOAD_SIZE.rawValue))
    package static let errno = MosquittoError(rawValue: Int32(MOSQ_ERR_ERRNO.rawValue))
    package static let lookup = MosquittoError(rawValue: Int32(MOSQ_ERR_EAI.rawValue))
    package static let keepalive = MosquittoError(rawValue: Int32(MOSQ_ERR_KEEPALIVE.rawValue))
    package static let oversizePacket = MosquittoError(rawValue: Int32(MOSQ_ERR_OVERSIZE_PACKET.rawValue))
    package static let qosNotSupported = MosquittoError(rawValue: Int32(MOSQ_ERR_QOS_NOT_SUPPORTED.rawValue))
}

/// Turns a libmosquitto return code into a thrown `MosquittoError`; every wrapper goes through it.
@inline(__always)
func check(_ rc: Int32) throws(MosquittoError) {
    if rc != 0 { throw MosquittoError(rawValue: rc, systemErrno: Glibc.errno) }
}
