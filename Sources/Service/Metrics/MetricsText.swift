import Report
import Simulator

/// `/metrics`: the run as of now in Prometheus's text exposition format (version 0.0.4). Every
/// report figure is a `devsim_…_total` counter (gauges for the two that go down: `in_flight`,
/// `buffered`) labelled by device group, and by shard with `--shard`; connections up and in all
/// are gauges; acknowledgement latency, lateness and the connection timings are histograms in
/// seconds, from devsim's own histograms at their resolution. Subscriber groups (`subscribers:`)
/// have `devsim_subscriber_…` series of their own, labelled by their group; a cluster's brokers
/// (`broker.hosts`) `devsim_host_…`, labelled by host. No label names a device: a fleet of a
/// million devices makes as many series as one of ten. Under stages or a capacity search, the
/// stage under way, the search's step and the rate they aim at are gauges too.
package enum MetricsText {
    /// The `le` bounds of the histograms, in seconds: half a millisecond to ten seconds.
    package static let bounds: [Double] = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10]

    package static func render(_ live: Fleet.Live, shard: Shard?, version: String, startTime: Double) -> String {
        var text = ""
        let base = shard.map { [("shard", "\($0.index)/\($0.count)")] } ?? []
        for figure in Figure.allCases {
            let name = "devsim_" + snakeCase(figure.stringValue) + (figure.isGauge ? "" : "_total")
            header(&text, name, figure.help, figure.isGauge ? "gauge" : "counter")
            for group in live.result.groups {
                sample(&text, name, base + [("group", group.name)], "\(group.totals[figure])")
            }
        }
        header(
            &text, "devsim_refusals_total", "QoS 1/2 messages the broker refused, by the reason code of its PUBACK or PUBREC (MQTT 5).",
            "counter")
        for group in live.result.groups {
            for refusal in group.totals.refusals.byReason {
                sample(
                    &text, "devsim_refusals_total", base + [("group", group.name), ("code", refusal.code), ("reason", refusal.reason)],
                    "\(refusal.count)")
            }
        }
        header(&text, "devsim_connections_up", "Connections whose CONNACK accepted them and that are up now.", "gauge")
        for group in live.result.groups {
            sample(&text, "devsim_connections_up", base + [("group", group.name)], "\(group.totals.connectionsUp)")
        }
        header(
            &text, "devsim_connections_paused",
            "Connections down on purpose: paused by request, away by their lifecycle, or out by their stages.",
            "gauge")
        for group in live.result.groups {
            sample(&text, "devsim_connections_paused", base + [("group", group.name)], "\(group.totals.connectionsPaused)")
        }
        header(&text, "devsim_connections", "Connections of the fleet, up or not.", "gauge")
        sample(&text, "devsim_connections", base, "\(live.result.connections)")
        histogram(&text, "devsim_ack_latency_seconds", "QoS 1/2 publish to PUBACK/PUBCOMP.", live.result.latency, base)
        histogram(
            &text, "devsim_lateness_seconds", "How late messages were published after their ticks' deadlines.", live.result.lateness, base)
        connectTimings(&text, live.result.connectTimings, base)
        subscribers(&text, live.result.subscribers, base)
        hosts(&text, live.result.hosts, base)
        position(&text, live.position, base)
        header(&text, "devsim_process_start_time_seconds", "When devsim started, in seconds since the Unix epoch.", "gauge")
        sample(&text, "devsim_process_start_time_seconds", [], format(startTime))
        header(&text, "devsim_build_info", "devsim's version (0.1.0), as a label; the value is always 1.", "gauge")
        sample(&text, "devsim_build_info", [("version", version)], "1")
        return text
    }

    /// The stage under way, the capacity step and the rate they aim at (`RunPosition`), the
    /// live page's figures; none in a run with neither stages nor a search.
    private static func position(_ text: inout String, _ position: RunPosition, _ base: [(String, String)]) {
        if !position.stages.isEmpty {
            header(
                &text, "devsim_stage",
                "The stage under way of a load profile (stages:), 1-based; 0 once the last is over. A group's own profile has its group label.",
                "gauge")
            for stage in position.stages {
                sample(&text, "devsim_stage", base + (stage.group.map { [("group", $0)] } ?? []), "\(stage.stage ?? 0)")
            }
        }
        if let step = position.step {
            header(
                &text, "devsim_capacity_step",
                "The capacity search's step (--find-capacity), 1-based: the one under way, or the next while the fleet cools down.",
                "gauge")
            sample(&text, "devsim_capacity_step", base, "\(step.step)")
        }
        if let target = position.targetPerSecond {
            header(
                &text, "devsim_target_messages_per_second",
                "The messages a second the fleet's stages, or the capacity search's step, aim at now.", "gauge")
            sample(&text, "devsim_target_messages_per_second", base, format((target * 1000).rounded() / 1000))
        }
    }

    /// What each subscriber group received, its connections, and its end-to-end latency.
    private static func subscribers(_ text: inout String, _ groups: [SubscriberFigures], _ base: [(String, String)]) {
        guard !groups.isEmpty else { return }
        let counts: [(String, String, (SubscriberFigures) -> Int?)] = [
            ("received", "Messages the subscriber group's connections received.", { $0.received }),
            ("duplicates", "Messages a subscriber group received again (by sequence number).", { $0.duplicates }),
            ("gaps", "Sequence numbers missing from what a subscriber group received.", { $0.gaps }),
            ("out_of_order", "Messages a subscriber group received after a later one (not for shared groups).", { $0.outOfOrder }),
        ]
        for (name, help, read) in counts {
            header(&text, "devsim_subscriber_\(name)_total", help, "counter")
            for group in groups {
                guard let value = read(group) else { continue }
                sample(&text, "devsim_subscriber_\(name)_total", base + [("group", group.name)], "\(value)")
            }
        }
        header(&text, "devsim_subscriber_connections", "A subscriber group's connections.", "gauge")
        for group in groups { sample(&text, "devsim_subscriber_connections", base + [("group", group.name)], "\(group.connections)") }
        header(
            &text, "devsim_subscriber_connections_subscribed",
            "A subscriber group's connections the broker acknowledged the subscriptions of, once or more.", "gauge")
        for group in groups {
            sample(&text, "devsim_subscriber_connections_subscribed", base + [("group", group.name)], "\(group.subscribed)")
        }
        let latencies = groups.compactMap { group in (try? group.histogram?.histogram()).flatMap { $0 }.map { (group.name, $0) } }
        guard !latencies.isEmpty else { return }
        let name = "devsim_subscriber_latency_seconds"
        header(&text, name, "From a payload's timestamp to its receipt. Buckets at devsim's histogram resolution (1.6 %).", "histogram")
        for (group, histogram) in latencies { buckets(&text, name, histogram, base + [("group", group)]) }
    }

    static func header(_ text: inout String, _ name: String, _ help: String, _ type: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    static func sample(_ text: inout String, _ name: String, _ labels: [(String, String)], _ value: String) {
        let labelText = labels.isEmpty ? "" : "{" + labels.map { "\($0.0)=\"\(escaped($0.1))\"" }.joined(separator: ",") + "}"
        text += "\(name)\(labelText) \(value)\n"
    }

    private static func histogram(
        _ text: inout String, _ name: String, _ help: String, _ histogram: Histogram, _ labels: [(String, String)]
    ) {
        header(&text, name, help + " Buckets at devsim's histogram resolution (1.6 %).", "histogram")
        buckets(&text, name, histogram, labels)
    }

    /// A histogram's samples, without its header: one series of several.
    static func buckets(_ text: inout String, _ name: String, _ histogram: Histogram, _ labels: [(String, String)]) {
        for bound in bounds {
            let count = histogram.count(atMost: UInt64(bound * 1e9))
            sample(&text, name + "_bucket", labels + [("le", format(bound))], "\(count)")
        }
        sample(&text, name + "_bucket", labels + [("le", "+Inf")], "\(histogram.count)")
        sample(&text, name + "_sum", labels, format(histogram.approximateSum / 1e9))
        sample(&text, name + "_count", labels, "\(histogram.count)")
    }

    /// `skippedOffline` → `skipped_offline`.
    package static func snakeCase(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase {
                result += "_" + character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// A label value as the format writes it: backslash, quote and newline escaped.
    private static func escaped(_ value: String) -> String {
        var result = ""
        for character in value {
            switch character {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            default: result.append(character)
            }
        }
        return result
    }

    /// A number as Prometheus reads it, without a needless exponent.
    private static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return "\(Int64(value))" }
        return "\(value)"
    }
}
