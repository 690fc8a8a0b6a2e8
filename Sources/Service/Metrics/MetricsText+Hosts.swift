import Report

extension MetricsText {
    /// Each broker of a cluster (`broker.hosts`): its connections and messages, by a `host`
    /// label (`host:port`); nothing for one broker. Each adds up over the hosts to the groups'.
    static func hosts(_ text: inout String, _ hosts: [HostFigures], _ base: [(String, String)]) {
        guard !hosts.isEmpty else { return }
        header(&text, "devsim_host_connections_up", "Connections up now on a broker of the cluster (broker.hosts).", "gauge")
        for host in hosts { sample(&text, "devsim_host_connections_up", base + [("host", host.host)], "\(host.connectionsUp)") }
        let counts: [(String, String, (HostFigures) -> Int)] = [
            ("connects", "CONNACKs of a broker of the cluster that accepted a connection.", \.connects),
            ("connection_losses", "Connections to a broker of the cluster that were lost.", \.connectionLosses),
            ("failovers_from", "Connections whose attempt at a broker failed and that went on to the next one.", \.failoversFrom),
            ("failovers_to", "Connections that came to a broker after an attempt at another failed.", \.failoversTo),
            ("published", "Messages handed to libmosquitto on the connections to a broker of the cluster.", \.published),
            ("acknowledged", "QoS 1/2 messages a broker of the cluster acknowledged.", \.acknowledged),
            ("failed", "Messages that failed on the connections to a broker of the cluster.", \.failed),
        ]
        for (name, help, read) in counts {
            header(&text, "devsim_host_\(name)_total", help, "counter")
            for host in hosts { sample(&text, "devsim_host_\(name)_total", base + [("host", host.host)], "\(read(host))") }
        }
    }
}
