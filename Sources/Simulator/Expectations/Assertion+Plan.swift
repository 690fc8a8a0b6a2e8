import MQTT
import Report

extension Assertion {
    /// Why this assertion cannot be judged by a run of `plan`, as a sentence, or `nil` when it
    /// can: a figure measured by `--verify` without it, latency with every device at QoS 0,
    /// lateness with every device at `publish: max`. Known before anything connects, so such a
    /// run is refused (exit 2) rather than failed, or passed on a figure never measured, after it.
    package func unjudgeableReason(plan: FleetPlan, verify: Bool) -> String? {
        let devices = plan.connections.lazy.flatMap(\.devices)
        if let group = subscriberGroup, !plan.subscribers.contains(where: { $0.name == group }) {
            let names = plan.subscribers.map { "'\($0.name)'" }
            return "\(text): the run has no subscriber group '\(group)'"
                + (names.isEmpty ? " (it has none)" : " (it has \(names.joined(separator: ", ")))")
        }
        if let stage, stage > plan.stages.count {
            return "\(text): the run has \(plan.stages.isEmpty ? "no stages" : Text.counted(plan.stages.count, "stage"))"
        }
        switch metric.needs {
        case .verify where !verify:
            return "\(text): \(metric.name) is measured by the closed-loop check; add --verify"
        case .verify where metric.name == "outOfOrder" && subscriberGroup == nil && devices.allSatisfy({ $0.verify.isSparkplug }):
            return "\(text): every device group is Sparkplug, whose seq (0–255) cannot tell a message that came late from one "
                + "past a gap, so --verify judges no order for it"
        case .acknowledgements where !devices.contains(where: { $0.qos.isAcknowledged }):
            return "\(text): latency is measured for QoS 1 and 2 acknowledgements, and every device publishes at QoS 0"
        case .schedule where !devices.contains(where: { $0.perSecond.isFinite }):
            return "\(text): lateness is measured against a schedule, and every device publishes at max"
        case .ackTimeout
        where !plan.connections.contains(where: { $0.ackTimeout != nil && $0.devices.contains { $0.qos.isAcknowledged } }):
            return "\(text): ackTimeouts counts QoS 1/2 messages not acknowledged within --ack-timeout (broker.ackTimeout), "
                + "and no QoS 1/2 device has one"
        default:
            return nil
        }
    }
}
