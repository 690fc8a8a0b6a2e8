/// Every figure `--expect` knows, by name.
public enum ReportMetrics {
    /// The metric called `name` (or one of its aliases: `p99` is `latency.p99`, `verify.lost` is
    /// `lost`, `e2eLatency.p99` is `e2e.p99`), or `nil`.
    package static func named(_ name: String) -> Metric? {
        byName[aliases[name] ?? name]
    }

    /// What a stage keeps of its own (`stage[N].…`, `RunReport.ofStage`): its counts, rate,
    /// latency and lateness.
    package static let perStage: Set<String> = Set(
        ["rate", "scheduled", "published", "acknowledged", "ratePerSecond", "durationSeconds"]
            + ["latency", "lateness"].flatMap { prefix in ["p50", "p90", "p99", "p999", "max", "count"].map { "\(prefix).\($0)" } })

    /// The figures each step of a capacity search has, an SLO's: a stage's, and with
    /// `--verify` what the step lost (`StepLoss`).
    package static let perStep: Set<String> = perStage.union(["lost"])

    /// Every metric, in the order help lists them.
    public static let all: [Metric] =
        ratios + counts
        + percentiles("latency", needs: .acknowledgements, unavailable: noAcknowledgements) { $0.latency }
        + percentiles("lateness", needs: .schedule, unavailable: { _ in "not available: nothing was scheduled" }) { $0.lateness }
        + [Metric("durationSeconds", .number) { $0.durationSeconds }]
        + verify + connectTimings

    /// The closed-loop check's figures, from `RunReport.verify`; absent unless the run had `--verify`.
    /// This is the one place that reads them.
    /// A check that could not do its job (`VerifySummary.invalid`) judges nothing: its figures
    /// are no figures of the broker's.
    static let verify: [Metric] = {
        let notVerified: @Sendable (RunReport) -> String = { report in
            report.verify?.invalid.map { "not judged: \($0)" } ?? "not available: run with --verify"
        }
        let judged: @Sendable (RunReport) -> VerifySummary? = { report in report.verify.flatMap { $0.invalid == nil ? $0 : nil } }
        return [
            Metric("received", .number, needs: .verify, unavailable: notVerified) { judged($0).map { Double($0.received) } },
            Metric(
                "lost", .number, needs: .verify, unavailable: notVerified,
                share: { $0.lostPercent }
            ) { judged($0).map { Double($0.lost) } },
            Metric("duplicated", .number, needs: .verify, unavailable: notVerified) { judged($0).map { Double($0.duplicated) } },
            Metric("outOfOrder", .number, needs: .verify, unavailable: notVerified) { judged($0).map { Double($0.outOfOrder) } },
            Metric("unconfirmed", .number, needs: .verify, unavailable: notVerified) { judged($0).map { Double($0.unconfirmed) } },
        ]
            + percentiles(
                "e2e", needs: .verify,
                unavailable: { report in
                    report.verify == nil || report.verify?.invalid != nil ? notVerified(report) : "not available: nothing was received"
                }
            ) { judged($0)?.e2eLatency }
    }()

    static let ratios: [Metric] = [
        Metric("rate", .percentage, unavailable: { _ in "not available: nothing was scheduled" }) { report in
            // Ticks an onChange group kept back, unchanged, were never to be sent.
            let due = report[.scheduled] - report[.unchanged]
            return due > 0 ? Double(report[.published]) * 100 / Double(due) : nil
        },
        // Saturation shows here while rate stays at 100 %: handed over is not acknowledged.
        Metric("acked", .percentage, needs: .acknowledgements, unavailable: { _ in "not available: no QoS 1/2 message was published" }) {
            $0.ackedPercent
        },
        Metric("connected", .percentage, unavailable: { _ in "not available: no connections" }) { report in
            report.connections > 0 ? Double(report.connectionsUp) * 100 / Double(report.connections) : nil
        },
    ]

    static let counts: [Metric] = {
        let others: [(String, @Sendable (RunReport) -> Int)] = [
            ("connectionsUp", { $0.connectionsUp }), ("connections", { $0.connections }), ("neverConnected", { $0.neverConnected ?? 0 }),
            ("faults.spike", { $0.faults.spike }), ("faults.stuck", { $0.faults.stuck }),
            ("faults.dropout", { $0.faults.dropout }), ("faults.drift", { $0.faults.drift }),
        ]
        let fields = Figure.allCases.map { figure in (figure.stringValue, { @Sendable in $0[figure] }) } + others
        return fields.map { name, get in
            Metric(name, .number, needs: name == Figure.ackTimeouts.stringValue ? .ackTimeout : nil) { Double(get($0)) }
        }
            + [Metric("ratePerSecond", .number) { $0.ratePerSecond }]
    }()

    /// `PREFIX.p50`, `.p90`, `.p99`, `.p999`, `.max` (durations) and `.count` of a percentile figure.
    static func percentiles(
        _ prefix: String, needs: Metric.Need?, unavailable: @escaping @Sendable (RunReport) -> String,
        _ read: @escaping @Sendable (RunReport) -> Percentiles?
    ) -> [Metric] {
        let fields: [(String, @Sendable (Percentiles) -> Double)] = [
            ("p50", { $0.p50 }), ("p90", { $0.p90 }), ("p99", { $0.p99 }), ("p999", { $0.p999 }), ("max", { $0.max }),
        ]
        return fields.map { field, get in
            Metric("\(prefix).\(field)", .duration, needs: needs, unavailable: unavailable) { read($0).map(get) }
        } + [Metric("\(prefix).count", .number, needs: needs, unavailable: unavailable) { read($0).map { Double($0.count) } }]
    }

    private static let noAcknowledgements: @Sendable (RunReport) -> String = { _ in
        "not available: nothing was acknowledged (latency is measured for QoS 1 and 2)"
    }

    static let byName: [String: Metric] = Dictionary(all.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })

    static let aliases: [String: String] = {
        var aliases = [
            "verify.received": "received", "verify.lost": "lost",
            "verify.duplicated": "duplicated", "verify.outOfOrder": "outOfOrder", "verify.unconfirmed": "unconfirmed",
            "p99.9": "latency.p999", "e2eLatency.p99.9": "e2e.p999", "verify.e2eLatency.p99.9": "e2e.p999",
        ]
        for field in ["p50", "p90", "p99", "p999"] { aliases[field] = "latency.\(field)" }
        for field in ["p50", "p90", "p99", "p999", "max", "count"] {
            aliases["e2eLatency.\(field)"] = "e2e.\(field)"
            aliases["verify.e2eLatency.\(field)"] = "e2e.\(field)"
        }
        for prefix in ["latency", "lateness", "e2e"] + ConnectTimings.Phase.allCases.map(\.name) {
            aliases["\(prefix).p99.9"] = "\(prefix).p999"
        }
        return aliases
    }()
}

extension ReportMetrics {
    /// A subscriber group's figure (`subscribers[NAME].FIGURE`), read from its entry of the
    /// report's `subscribers`; `nil` for a name that is not one. `p99` alone means latency, as
    /// for the devices.
    package static func subscriber(_ figure: String, of group: String) -> Metric? {
        let figure = aliases[figure].flatMap { $0.hasPrefix("latency.") ? $0 : nil } ?? figure
        guard let (kind, read) = subscriberFigures[figure] else { return nil }
        let missing: @Sendable (RunReport) -> String = { report in
            guard report.subscribers?.contains(where: { $0.name == group }) == true else {
                return "not available: the run has no subscriber group '\(group)'"
            }
            return figure == "outOfOrder"
                ? "not available: group '\(group)' is shared, and its members' order is not the broker's"
                : "not available: no payload that group '\(group)' received had a timestamp"
        }
        return Metric("subscribers[\(group)].\(figure)", kind, unavailable: missing) { report in
            report.subscribers?.first(where: { $0.name == group }).flatMap(read)
        }
    }

    /// What a subscriber group has of its own, by name.
    private static let subscriberFigures: [String: (Metric.Kind, @Sendable (SubscriberFigures) -> Double?)] = {
        let counts: [(String, @Sendable (SubscriberFigures) -> Int?)] = [
            ("connections", { $0.connections }), ("subscribed", { $0.subscribed }), ("received", { $0.received }),
            ("connectionsReceiving", { $0.connectionsReceiving }), ("duplicates", { $0.duplicates }),
            ("outOfOrder", { $0.outOfOrder }), ("gaps", { $0.gaps }),
        ]
        var figures: [String: (Metric.Kind, @Sendable (SubscriberFigures) -> Double?)] = [:]
        for (name, get) in counts { figures[name] = (.number, { get($0).map(Double.init) }) }
        figures["ratePerSecond"] = (.number, { $0.ratePerSecond })
        let percentiles: [(String, @Sendable (Percentiles) -> Double)] = [
            ("p50", { $0.p50 }), ("p90", { $0.p90 }), ("p99", { $0.p99 }), ("p999", { $0.p999 }), ("max", { $0.max }),
        ]
        for (field, get) in percentiles { figures["latency.\(field)"] = (.duration, { $0.latency.map(get) }) }
        figures["latency.count"] = (.number, { $0.latency.map { Double($0.count) } })
        return figures
    }()

    /// The figures of `subscribers[NAME].…`, in order, for messages and help.
    package static let subscriberFigureNames: [String] =
        ["connections", "subscribed", "received", "connectionsReceiving", "ratePerSecond", "duplicates", "outOfOrder", "gaps"]
        + ["p50", "p90", "p99", "p999", "max", "count"].map { "latency.\($0)" }

    /// The names `--expect` accepts, in short, for error messages and help.
    public static let summary: String = {
        let plain =
            (ratios + counts).map(\.name) + ["durationSeconds"] + verify.filter { $0.kind == .number && !$0.name.contains(".") }.map(\.name)
        return plain.joined(separator: ", ")
            + ", latency.*, lateness.*, e2e.*, connect.*, tcpConnect.*, tlsHandshake.*, wsUpgrade.*, connack.* "
            + "(each .p50, .p90, .p99, .p999, .max, .count); p50, p90, p99, p999 alone mean latency; "
            + "stage[N].FIGURE for a stage's; subscribers[NAME].FIGURE for a subscriber group's"
    }()
}
