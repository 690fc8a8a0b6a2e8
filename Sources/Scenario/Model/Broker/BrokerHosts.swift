/// `broker.hosts` and a `--url` list: the nodes of one broker cluster, which the devices are
/// spread over (`spread`), each connection failing over to the next node in the list when its
/// own is down, and staying where it was taken.
public struct BrokerHosts: Sendable, Equatable {
    /// One node: its host and port; `nil` port for the scenario's `port`, or the default.
    public struct Entry: Sendable, Equatable, CustomStringConvertible {
        public var host: String
        public var port: Int?

        public init(host: String, port: Int? = nil) {
            self.host = host
            self.port = port
        }

        public var description: String {
            let name = host.contains(":") ? "[\(host)]" : host
            return port.map { "\(name):\($0)" } ?? name
        }
    }

    public var entries: [Entry]
    public var spread: HostSpread
    /// Where `broker.hosts` is written; `nil` for `--url`.
    public var location: SourceLocation?
    /// The scheme of entries given as URLs (all the same): their transport and TLS; `nil` for
    /// entries given as `host:port`.
    public var scheme: BrokerURL.Scheme?
    /// The WebSocket path of ws:// and wss:// entries.
    public var path: String?

    public init(
        entries: [Entry], spread: HostSpread = .device, location: SourceLocation? = nil, scheme: BrokerURL.Scheme? = nil,
        path: String? = nil
    ) {
        self.entries = entries
        self.spread = spread
        self.location = location
        self.scheme = scheme
        self.path = path
    }

    /// Reads one entry: a broker URL (`mqtt://10.0.0.1:1883`), `host:port` or a host alone.
    /// Returns the entry and the URL's scheme and path, if it was one; throws why not, in words.
    public static func entry(_ text: String) throws(BrokerURLError) -> (Entry, BrokerURL.Scheme?, String?) {
        if text.contains("://") {
            let url = try BrokerURL.parse(text)
            if url.username != nil {
                throw BrokerURLError("'\(text)' names a user, which is every host's: give it as broker.username")
            }
            return (Entry(host: url.host, port: url.port), url.scheme, url.path)
        }
        if BrokerHost.problem(with: text) == nil { return (Entry(host: text), nil, nil) }
        // `host:port` or `[v6]:port`: as the authority of a URL.
        let url = try BrokerURL.parse("mqtt://" + text)
        guard !text.contains("/") else { throw BrokerURLError("'\(text)' is not a host:port") }
        return (Entry(host: url.host, port: url.port), nil, nil)
    }
}

/// How `broker.hosts` deals the connections over the hosts.
public enum HostSpread: String, Sendable, CaseIterable {
    /// By a hash of the device's id (a shared connection's or an edge node's client id): the
    /// same device goes to the same host in every run and every shard.
    case device
    /// Connection i to host i mod n, in the fleet's order.
    case roundRobin

    /// The home host of a connection: `key` is what `device` hashes, `index` its place among
    /// its scenario's connections in the whole fleet.
    public func host(of key: String, index: Int, among count: Int) -> Int {
        switch self {
        case .roundRobin: return index % count
        case .device:
            // FNV-1a: Swift's own hash is seeded anew in every process.
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return Int(hash % UInt64(count))
        }
    }
}
