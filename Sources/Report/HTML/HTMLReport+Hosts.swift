extension HTMLReport {
    /// The table of a cluster's brokers (`broker.hosts`), after the groups'; nothing for one broker.
    static func hosts(_ report: RunReport) -> String {
        guard let hosts = report.hosts, !hosts.isEmpty else { return "" }
        let rows = hosts.map { host in
            Row(
                " data-host=\"\(HTMLText.escape(host.host))\"",
                [HTMLText.escape(host.host)]
                    + [
                        host.connectionsUp, host.connects, host.connectionLosses, host.failoversFrom, host.failoversTo, host.published,
                        host.acknowledged, host.failed,
                    ].map { "\($0)" })
        }
        let columns = [
            "host", "connections up", "connects", "connections lost", "failovers from", "failovers to", "published", "acknowledged",
            "failed",
        ]
        return "<h2>Hosts</h2>\n" + table("id=\"hosts\"", columns, rows)
    }
}
