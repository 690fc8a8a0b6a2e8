import MQTT
import Scripting
import Signals

/// The hooks of a connection's scripted devices beside their ticks: `start`, at a device's first
/// CONNACK, and `connected`, at each, before any telemetry. What either returns, a list of
/// `{ topic = …, payload = … }`, goes out beside the ticks, at the devices' QoS.
final class ScriptRole: ConnectionRole {
    let name = "script"
    /// The connection's scripted devices, by their place among its devices.
    private let sources: [(index: Int, source: ScriptedSource)]
    private let qos: QoS

    init?(plan: ConnectionPlan, sources: [any MessageSource]) {
        let scripted = sources.enumerated().compactMap { index, source in source.scripted.map { (index, $0) } }
        guard !scripted.isEmpty else { return nil }
        self.sources = scripted
        qos = plan.devices.first?.qos ?? .atMostOnce
    }

    func connected(_ context: any RoleContext) {
        for (index, source) in sources {
            let elapsed = context.elapsed(of: index)
            if !source.hasStarted {
                source.hasStarted = true
                if source.script.defines(.start), let results = source.call(.start, at: elapsed) { publish(results, context) }
            }
            if source.script.defines(.connected), let results = source.call(.connected, at: elapsed) { publish(results, context) }
        }
    }

    /// A hook's list of messages, each published; anything else it returned is no message.
    private func publish(_ results: [ScriptValue], _ context: any RoleContext) {
        guard case .list(let messages)? = results.first else { return }
        for message in messages {
            guard case .table(let entries) = message, let topic = entries["topic"]?.text, let payload = entries["payload"] else { continue }
            var buffer = PayloadBuffer()
            if let text = payload.text { buffer.append(contentsOf: Array(text.utf8)) } else { ScriptJSON.write(payload, into: &buffer) }
            _ = buffer.withBytes {
                context.publish(OutboundMessage(topic: topic, qos: qos, retain: entries["retain"] == .bool(true), what: name), payload: $0)
            }
        }
    }
}
