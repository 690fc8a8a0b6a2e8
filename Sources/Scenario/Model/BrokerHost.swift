/// What a broker host may be: a name or an address, nothing around it. A URL or a `host:port`
/// given as a host was resolved as a name and retried as one for ever; the scenario loader and
/// the command line refuse it with this, naming what to write instead.
public enum BrokerHost {
    /// Why `host` is not a host name, with a hint; `nil` when it may be one.
    public static func problem(with host: String) -> String? {
        let schemeEnd = host.utf8.indices.first { host.utf8[$0...].starts(with: "://".utf8) }
        if let schemeEnd {
            let rest = host[host.index(schemeEnd, offsetBy: 3)...].prefix { $0 != "/" && $0 != ":" && $0 != "?" }
            let name = rest.isEmpty ? "HOST" : String(rest)
            return "'\(host)' is a URL, not a host name: give the host alone ('\(name)') and the port on its own; "
                + "devsim speaks MQTT over TCP and TLS (broker.tls), not yet over WebSockets"
        }
        let parts = host.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 2, !parts[0].isEmpty, let port = Int(parts[1]), (1...65535).contains(port) {
            return "'\(host)' holds a port: give the host ('\(parts[0])') and the port (\(port)) on their own"
        }
        if host.isEmpty { return "the host name is empty" }
        return nil
    }
}
