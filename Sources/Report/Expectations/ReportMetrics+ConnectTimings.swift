extension ReportMetrics {
    /// How long connecting took (`RunReport.connectTimings`): `connect.*` the whole, and
    /// `tcpConnect.*`, `tlsHandshake.*`, `wsUpgrade.*`, `connack.*` its phases, each with the
    /// fields of `percentiles`. A phase no connection had is not available, and says why.
    static let connectTimings: [Metric] = ConnectTimings.Phase.allCases.flatMap { phase in
        percentiles(phase.name, needs: nil, unavailable: { report in unavailable(phase, report) }) { $0.connectTimings?[phase] }
    }

    private static func unavailable(_ phase: ConnectTimings.Phase, _ report: RunReport) -> String {
        guard report.connectTimings != nil else { return "not available: no connection was accepted" }
        switch phase {
        case .tlsHandshake: return "not available: no connection used TLS (mqtts:// or wss://)"
        case .wsUpgrade: return "not available: no connection went over a WebSocket (ws:// or wss://)"
        default: return "not available in this report"
        }
    }
}
