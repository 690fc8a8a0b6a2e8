import MQTT
import Reactor
import Report
import Signals

/// The devices' commands (`commands:`): their topics subscribed to after every CONNACK, and each
/// command that arrives checked and carried out on its device, all or not at all, then
/// answered; a retained one ignored, as it would be carried out again at every connection,
/// undoing what came after it.
final class CommandRole: ConnectionRole {
    let name = "commands"
    private let devices: [DevicePlan]
    private let filters: [String]
    /// The telemetry's QoS, which the answers take.
    private let qos: QoS
    /// When the SUBSCRIBEs went out (at the CONNACK), until their last SUBACK.
    private var subscribedAt: UInt64?

    init?(devices: [DevicePlan]) {
        filters = devices.flatMap { $0.commands?.filters ?? [] }
        guard !filters.isEmpty else { return nil }
        self.devices = devices
        qos = devices.first?.qos ?? .atMostOnce
    }

    func connected(_ context: any RoleContext) {
        subscribedAt = context.now
        context.subscribe(filters, qos: .atLeastOnce, for: self)
    }

    func subscribed(_ suback: Subscriptions.Suback, _ context: any RoleContext) {
        if let refusal = suback.refusal { context.warnOnce("commands: \(refusal): no command reaches the devices") }
        if suback.isLast, let subscribedAt {
            context.recordSubscribeLatency(context.now &- subscribedAt)
            self.subscribedAt = nil
        }
    }

    func received(_ message: ReceivedMessage, _ context: any RoleContext) -> Bool {
        let topic = message.topic
        guard let device = devices.firstIndex(where: { $0.commands?.route(for: topic) != nil }) else { return false }
        guard !message.retain else {
            context.warnOnce("commands: a retained message on '\(topic)' ignored: send commands without retain", key: "commands: retained")
            return true
        }
        carryOut(
            topic: topic, payload: Array(message.payload), device: device,
            replyTo: message.responseTopic.map { ($0, message.correlationData) }, context)
        return true
    }

    /// A command, checked and carried out all or not at all, then answered: the device's state at
    /// once on its topic, and for a request its reply (the state, or `{"error": reason}`): on an
    /// MQTT 5 request's response topic with its correlation data, or on the `response` topic
    /// under its `{requestId}`. Counted once as received, once as applied or rejected, and once
    /// as answered when any of its answer's messages went out; a rejection is logged once per
    /// reason and never stops the schedule.
    private func carryOut(
        topic: String, payload: [UInt8], device index: Int, replyTo: (topic: String, correlation: [UInt8]?)?, _ context: any RoleContext
    ) {
        let arrivedAt = context.now
        let counters = context.counters
        counters.commandReceived()
        guard let plan = devices[index].commands?.route(for: topic) else { return }
        var command: DeviceCommand?
        var rejection: CommandRejection?
        do {
            let parsed = try DeviceCommand.parse(topic: topic, payload: payload, plan: plan)
            command = parsed
            try context.take(parsed, device: index)
        } catch {
            rejection = error
        }
        counters.commandDone(applied: rejection == nil)
        if let rejection {
            context.warnOnce("commands: rejected: \(rejection.reason) (first on '\(topic)')", key: "command rejected: \(rejection.kind)")
        }
        guard context.isConnected else { return }
        let reply: (topic: String, correlation: [UInt8]?)? =
            replyTo
            ?? (command?.requestID ?? plan.requestID(inQueryOf: topic)).flatMap { id in
                plan.response.map {
                    ($0.replacingRequestID(id, status: rejection.map { $0.namesNoCommandedField ? 404 : 400 } ?? 200), nil)
                }
            }
        // One command, one answer, however many messages it took: the state (a message a field
        // in the per-field style) and the reply.
        var answered = false
        if let rejection {
            if let reply {
                answered = answer(reply, Array("{\"error\":\(JSONText.quoted(rejection.reason))}".utf8), context)
            }
        } else {
            answered = context.sayState(of: index, what: name) > 0
            if let reply, answer(reply, context.lastStateAsReply(of: index), context) { answered = true }
            context.recordCommandLatency(context.now &- arrivedAt)
        }
        if answered { counters.commandAnswered() }
    }

    /// A request's reply on its topic, at the telemetry's QoS, with its correlation data where
    /// MQTT 5 gave one; whether it went out.
    private func answer(_ reply: (topic: String, correlation: [UInt8]?), _ payload: [UInt8], _ context: any RoleContext) -> Bool {
        context.publish(
            OutboundMessage(topic: reply.topic, qos: qos, retain: false, what: name, correlation: reply.correlation), payload: payload)
    }
}
