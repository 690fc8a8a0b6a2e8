import MQTT
import Report

/// Where the dry run's messages go, each as it would be published (`Said`), handed to `emit`:
/// the ticks' messages, counted against `--messages`, and what is said beside them, which is not.
final class DryRunPrinter {
    /// One message, as a person reads it.
    struct Said {
        /// Seconds of virtual time from every connection's CONNACK.
        var seconds: Double
        var topic: String
        /// The payload as text: itself, a Sparkplug payload's metrics as JSON, bytes in hex.
        var payload: String
        var qos: QoS
        var retain: Bool
        var kind: Kind
        /// A tick's MQTT 5 properties, where its group has them.
        var properties: PublishProperties?

        enum Kind: Equatable {
            case tick
            /// A device's state at the CONNACK, beside its schedule.
            case state
            /// What a role says beside the ticks (availability, discovery, a Sparkplug birth).
            case beside(String)
            /// The will the CONNECT carries.
            case will
        }
    }

    private let emit: (Said) -> Void
    /// Ticks' messages still to print.
    private var budget: Int
    private(set) var printed = 0
    /// What the roles count (states, commands): kept, and not shown.
    let counters = Counters()

    init(messages: Int?, emit: @escaping (Said) -> Void) {
        budget = messages ?? .max
        self.emit = emit
    }

    var hasBudget: Bool { budget > 0 }

    /// A device's tick message, or its state.
    func print(_ device: DevicePlan, at seconds: Double, topic: String, payload: String, retain: Bool, kind: Said.Kind) {
        if kind == .tick {
            budget -= 1
            printed += 1
        }
        emit(
            Said(
                seconds: seconds, topic: topic, payload: payload, qos: device.qos, retain: retain, kind: kind,
                properties: kind == .tick ? device.properties : nil))
    }

    /// A message a role says beside the ticks.
    func print(_ message: OutboundMessage, at seconds: Double, payload: String) {
        emit(
            Said(
                seconds: seconds, topic: message.topic.name, payload: payload, qos: message.qos, retain: message.retain,
                kind: .beside(message.what)))
    }

    /// The will a CONNECT carries, which the broker publishes for a connection lost without a
    /// DISCONNECT.
    func print(will: Will, payload: String) {
        emit(Said(seconds: 0, topic: will.topic, payload: payload, qos: will.qos, retain: will.retain, kind: .will))
    }
}

extension DryRunPrinter.Said {
    /// The dry run's line: one JSON object with `at` (`VirtualTime`), `topic`, `payload` (a JSON
    /// string), `qos` and `retain`; a tick's `properties`, `"state": true` on a device's state at
    /// the CONNACK, `"what"` on what a role says beside the ticks, `"will": true` on the will.
    /// First the time, where a person's eye starts, and a `jq` filter on it reads as plain.
    var line: String {
        var line =
            "{\"at\":\"\(VirtualTime.text(seconds))\",\"topic\":\(JSONText.quoted(topic)),\"payload\":\(JSONText.quoted(payload)),"
            + "\"qos\":\(qos),\"retain\":\(retain)"
        switch kind {
        case .tick: if let properties { line += ",\"properties\":" + properties.json }
        case .state: line += ",\"state\":true"
        case .beside(let what): line += ",\"what\":" + JSONText.quoted(what)
        case .will: line += ",\"will\":true"
        }
        return line + "}\n"
    }
}
