import Report

extension MetricsText {
    /// How long connecting took: `devsim_connect_seconds`, the whole, and
    /// `devsim_connect_phase_seconds` labelled by phase (`tcp_connect`, `tls_handshake`,
    /// `ws_upgrade`, `connack`), those some connection had. Over the connections the broker
    /// accepted; each phase ends when the event loop sees its event.
    static func connectTimings(_ text: inout String, _ timings: ConnectTimings, _ base: [(String, String)]) {
        let whole = "devsim_connect_seconds"
        header(
            &text, whole,
            "From a connection attempt's start to its CONNACK, over the connections the broker accepted. "
                + "Buckets at devsim's histogram resolution (1.6 %).", "histogram")
        buckets(&text, whole, timings[.connect], base)
        let phases = ConnectTimings.Phase.allCases.filter { $0 != .connect && !timings[$0].isEmpty }
        guard !phases.isEmpty else { return }
        let name = "devsim_connect_phase_seconds"
        header(
            &text, name,
            "Each phase of connecting (tcp_connect, tls_handshake, ws_upgrade, connack), over the connections the broker accepted. "
                + "Buckets at devsim's histogram resolution (1.6 %).", "histogram")
        for phase in phases { buckets(&text, name, timings[phase], base + [("phase", snakeCase(phase.name))]) }
    }
}
