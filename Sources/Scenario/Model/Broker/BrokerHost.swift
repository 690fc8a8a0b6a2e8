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
            return "'\(host)' is a URL, not a host name: give it as a URL (broker.url, --url), "
                + "or the host alone ('\(name)') and the port on its own"
        }
        if host.isEmpty { return "the host name is empty" }
        // [::1]:1883, or name:1883 (one colon: an IPv6 address has at least two).
        var name = Substring(host), port: Substring?
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            name = host[host.index(after: host.startIndex)..<close]
            let rest = host[host.index(after: close)...]
            guard rest.isEmpty || rest.hasPrefix(":") else { return "'\(host)' is not a host name or address" }
            port = rest.isEmpty ? nil : rest.dropFirst()
            if port == nil { return "'\(host)' is an IPv6 address in brackets: give it without them ('\(name)')" }
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
            name = host[..<colon]
            port = host[host.index(after: colon)...]
        }
        guard let port else { return nil }
        if let number = Int(port), (1...65535).contains(number), !name.isEmpty {
            return "'\(host)' holds a port: give the host ('\(name)') and the port (\(number)) on their own"
        }
        return "'\(host)' is not a host name or address: a host has no ':' (an IPv6 address has several)"
    }
}
