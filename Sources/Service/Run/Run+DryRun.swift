import Report
import Simulator

/// `--dry-run`: what the run would publish, on a virtual clock, without a broker.
extension Run {
    func dryRun(_ plan: FleetPlan, seed: UInt64, duration: Duration?) -> ExitCode {
        var duration = duration
        if duration == nil, options.messages == nil, plan.replayedMessages == nil {
            duration = .seconds(10)
            logger.info("dry run without --duration or --messages: showing the first 10 seconds")
        }
        if options.seed == nil {
            logger.info("dry run with seed \(seed); --seed \(seed) shows these values again")
        }
        if !plan.subscribers.isEmpty {
            // A dry run shows what would be published; a subscriber receives only from a broker.
            logger.info(
                "dry run: " + Text.counted(plan.subscribers.count, "subscriber group") + " not run without a broker: "
                    + plan.subscribers.map {
                        "'\($0.name)' (\(Text.counted($0.members.count, "connection")) on "
                            + $0.filters.map(\.text).joined(separator: ", ") + ")"
                    }.joined(separator: ", "))
        }
        // Who each group's devices would be on the broker, by its first: never a secret.
        for device in Sample.firstDevicePlans(of: plan) {
            guard let connection = plan.connections.first(where: { $0.devices.contains { $0.id == device.id } }),
                let identity = ConnectionIdentity.text(of: connection, in: plan)
            else { continue }
            let first = device.sparkplug.map { "edge node \($0.topic.edgeNodeID)" } ?? "device"
            logger.info("dry run: device group '\(device.group)' would connect its first \(first) as \(identity)")
        }
        var chunk = ""
        DryRun(plan: plan, seed: seed, duration: duration, messages: options.messages, logger: logger).run { line in
            chunk += line
            if chunk.utf8.count > 64 * 1024 {
                output(chunk)
                chunk = ""
            }
        }
        output(chunk)
        return .success
    }
}
