import MQTT
import Mosquitto

/// The topic filters a subscribing connection asks for after every CONNACK (a clean session
/// forgets them with each connection): one set of SUBSCRIBEs per QoS, as few as the broker's
/// Maximum Packet Size allows, and the SUBACKs still awaited. Kept by every connection that
/// subscribes; confined to the connection's loop.
struct Subscriptions {
    let filters: [(key: String, value: QoS)]
    /// The SUBSCRIBEs awaiting their SUBACK, by message id, with their filters in order.
    private var pending: [Int32: [String]] = [:]

    init(filters: [(key: String, value: QoS)]) {
        self.filters = filters
    }

    init(_ filters: [String], qos: QoS) {
        self.init(filters: filters.map { ($0, qos) })
    }

    /// What a SUBACK said.
    struct Suback {
        /// The filters it refused, each with the broker's reason.
        var refused: [(filter: String, reason: ReasonCode)] = []
        /// It was the last SUBACK awaited on this connection.
        var isLast = false

        /// "the broker refused the subscription to 'a/#': Not authorized (0x87)", the first
        /// refusal and how many more; `nil` when nothing was refused.
        var refusal: String? {
            guard let first = refused.first else { return nil }
            let more = refused.count > 1 ? " (and \(refused.count - 1) more)" : ""
            return "the broker refused the subscription to '\(first.filter)'\(more): \(first.reason)"
        }
    }

    /// Subscribes to every filter on `client`, just connected, with MQTT 5's `options`; returns
    /// what could not be sent, in words.
    mutating func subscribe(with client: Client, options: SubscriptionOptions = SubscriptionOptions()) -> [String] {
        pending.removeAll()
        var problems: [String] = []
        for qos in Set(filters.map(\.value)).sorted() {
            for packet in client.subscribe(filters.filter { $0.value == qos }.map(\.key), qos: qos, options: options) {
                switch packet.sent {
                case .success(let messageID):
                    pending[messageID] = packet.filters
                case .failure(let error) where error == .oversizePacket:
                    let bytes = PacketSize.subscribe(packet.filters, version: client.options.protocolVersion)
                    problems.append(
                        "cannot subscribe to '\(packet.filters[0])': its SUBSCRIBE of \(bytes) bytes is over the broker's "
                            + "Maximum Packet Size of \(client.brokerLimits.maximumPacketSize ?? 0) bytes (its CONNACK)")
                case .failure(let error):
                    let more = packet.filters.count > 1 ? " and \(packet.filters.count - 1) more" : ""
                    problems.append("cannot subscribe to '\(packet.filters[0])'\(more): \(error)")
                }
            }
        }
        return problems
    }

    /// The SUBACK for `messageID`, read against its SUBSCRIBE's filters; `nil` for one this
    /// connection did not send.
    mutating func acknowledged(_ messageID: Int32, grantedQoS: [Int32]) -> Suback? {
        guard let filters = pending.removeValue(forKey: messageID) else { return nil }
        var suback = Suback(isLast: pending.isEmpty)
        for (filter, granted) in zip(filters, grantedQoS) where granted >= 0x80 {
            suback.refused.append((filter, ReasonCode(rawValue: UInt8(truncatingIfNeeded: granted))))
        }
        return suback
    }
}
