/// One broker of a cluster (`broker.hosts`, a `--url` list) in the report: its connections and
/// what went through them. Each device group's connections count on the host they are on at
/// the time, so each figure adds up over the hosts to the run's: `published` to `published`,
/// `connects` to the accepted CONNACKs, a failover once from one host and once to another.
public struct HostFigures: Codable, Sendable, Equatable {
    /// `host:port`, as the scenario or `--url` gives it.
    public var host: String
    /// Connections up on it now; in the report, when the ticking ended, before the DISCONNECTs.
    public var connectionsUp = 0
    /// CONNACKs that accepted a connection.
    public var connects = 0
    /// Connections it had that were lost (not those closed on purpose).
    public var connectionLosses = 0
    /// Connections whose attempt here failed and that went on to the next host, and those
    /// that came here so.
    public var failoversFrom = 0
    public var failoversTo = 0
    /// The devices' messages handed to libmosquitto on its connections, acknowledged by it
    /// (QoS 1/2), and failed there.
    public var published = 0
    public var acknowledged = 0
    public var failed = 0

    public init(host: String) { self.host = host }

    /// For the log at the run's end.
    package var logLine: String {
        "host \(host): \(connectionsUp) up, \(connects) connects, \(connectionLosses) lost, failovers \(failoversFrom) from and "
            + "\(failoversTo) to, published \(published), acknowledged \(acknowledged), failed \(failed)"
    }

    /// The shards' figures of each host added up, in the order each host first appears.
    package static func merge(_ parts: [HostFigures]) -> [HostFigures] {
        var order: [String] = []
        var sums: [String: HostFigures] = [:]
        for part in parts {
            guard var sum = sums[part.host] else {
                order.append(part.host)
                sums[part.host] = part
                continue
            }
            sum.connectionsUp += part.connectionsUp
            sum.connects += part.connects
            sum.connectionLosses += part.connectionLosses
            sum.failoversFrom += part.failoversFrom
            sum.failoversTo += part.failoversTo
            sum.published += part.published
            sum.acknowledged += part.acknowledged
            sum.failed += part.failed
            sums[part.host] = sum
        }
        return order.compactMap { sums[$0] }
    }
}
