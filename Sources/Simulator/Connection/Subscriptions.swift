import MQTT
import Mosquitto

/// The topic filters a subscribing connection asks for after every CONNACK (a clean session
/// forgets them with each connection), one SUBSCRIBE per QoS, and the SUBACKs it still waits
/// for. Kept by the verifier's connections and the subscriber groups' alike; confined to the
/// connection's loop.
struct Subscriptions {
    let filters: [(key: String, value: QoS)]
    private var pending: Set<Int32> = []

    init(filters: [(key: String, value: QoS)]) {
        self.filters = filters
    }

    /// Subscribes to every filter on `client`, just connected; returns what could not be sent,
    /// in words.
    mutating func subscribe(with client: Client) -> [String] {
        pending.removeAll()
        var problems: [String] = []
        for qos in Set(filters.map(\.value)).sorted() {
            let topics = filters.filter { $0.value == qos }.map(\.key)
            do {
                pending.formUnion(try client.subscribe(topics, qos: qos))
            } catch {
                problems.append(
                    "cannot subscribe to '\(topics[0])'\(topics.count > 1 ? " and \(topics.count - 1) more" : ""): \(error)")
            }
        }
        return problems
    }

    /// A SUBACK for `messageID`: whether it was the last one awaited on this connection.
    mutating func acknowledged(_ messageID: Int32) -> Bool {
        pending.remove(messageID) != nil && pending.isEmpty
    }

    /// Whether a SUBACK's granted QoS values refuse a filter (0x80 and above).
    static func refuses(_ grantedQoS: [Int32]) -> Bool {
        grantedQoS.contains(where: { $0 >= 0x80 })
    }
}
