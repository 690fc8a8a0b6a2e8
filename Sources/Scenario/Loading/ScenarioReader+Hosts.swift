import MQTT

extension ScenarioReader {
    /// `broker.bind`: an IP address of this machine, or a list of them. Whether each is this
    /// machine's is known only where the run starts: `RunChecks` tries a `bind(2)` to it there.
    func bind(_ node: Node) -> BindAddresses? {
        let items: [Node]
        if case .sequence(let sequence) = node.kind { items = sequence } else { items = [node] }
        guard !items.isEmpty else {
            report(node.mark, "expected an IP address or a list of them for 'bind', found an empty list")
            return nil
        }
        var addresses: [String] = []
        var places: [String: SourceLocation] = [:]
        for item in items {
            guard let text = string(item, "bind") else { return nil }
            if let problem = BindAddresses.problem(with: text) {
                report(item.mark, "expected an IP address for 'bind': \(problem)")
                return nil
            }
            if addresses.contains(text) {
                report(item.mark, "'\(text)' is in 'bind' twice: each source address once")
                return nil
            }
            addresses.append(text)
            places[text] = location(of: item)
        }
        var bind = BindAddresses(addresses: addresses, location: location(of: node))
        bind.places = places
        return bind
    }

    /// `broker.hosts`: the nodes of one cluster, each a URL or `host:port`, in place of `host`
    /// or `url`; `spread` says how the devices are dealt over them.
    func hosts(_ node: Node, _ entries: Entries, into settings: inout BrokerSettings) {
        guard case .sequence(let items) = node.kind else {
            return report(
                node.mark,
                "expected a list of brokers for 'hosts' (such as [\"mqtt://10.0.0.1:1883\", \"10.0.0.2:1883\"]), found \(node.summary)")
        }
        guard !items.isEmpty else { return report(node.mark, "expected at least one broker in 'hosts', found an empty list") }
        let beside = ["host", "url", "azureIoTHub"].filter { entries[$0] != nil }
        guard beside.isEmpty else {
            let keys = beside.map { "'\($0)'" }.joined(separator: ", ")
            return report(node.mark, "'hosts' lists the brokers of one cluster: leave out \(keys), or 'hosts'")
        }
        var hosts = BrokerHosts(entries: [], location: location(of: node))
        var schemes: [BrokerURL.Scheme?] = []
        for item in items {
            guard let text = string(item, "hosts") else { return }
            let entry: BrokerHosts.Entry
            let scheme: BrokerURL.Scheme?
            let path: String?
            do throws(BrokerURLError) {
                (entry, scheme, path) = try BrokerHosts.entry(text)
            } catch {
                return report(item.mark, "expected a broker URL or host:port in 'hosts': \(error.message)")
            }
            // A host:port takes the scheme of the URLs beside it; the URLs must agree.
            if let scheme, let first = schemes.compactMap({ $0 }).first, first != scheme || path != hosts.path {
                return report(
                    item.mark,
                    "'\(text)' differs from the first URL in 'hosts' (\(first.rawValue)://) in scheme or path: "
                        + "the hosts of one cluster share a transport and TLS")
            }
            if hosts.entries.contains(entry) { return report(item.mark, "'\(text)' is in 'hosts' twice: each broker once") }
            schemes.append(scheme)
            hosts.entries.append(entry)
            if let scheme {
                hosts.scheme = scheme
                hosts.path = path
            }
        }
        if hosts.scheme != nil {
            let keys = ["transport", "path"].filter { entries[$0] != nil }
            if !keys.isEmpty {
                return report(
                    node.mark,
                    "the URLs in 'hosts' give the transport and path: leave out \(keys.map { "'\($0)'" }.joined(separator: ", "))")
            }
            if let scheme = hosts.scheme, !scheme.isSecure, let tlsNode = entries["tls"] {
                return report(
                    tlsNode.mark,
                    "'tls' with \(scheme.rawValue):// URLs in 'hosts', which have no TLS: use \(scheme == .ws ? "wss" : "mqtts")://")
            }
            settings.transport = hosts.scheme?.transport
            settings.path = hosts.path
            if hosts.scheme?.isSecure == true, settings.tls == nil { settings.tls = TLSSettings() }
        }
        if let spread = choice(entries["spread"], "spread", HostSpread.allCases.map(\.rawValue)).flatMap(HostSpread.init(rawValue:)) {
            hosts.spread = spread
        }
        settings.hosts = hosts
    }

    /// `spread` says how `hosts` deals the devices: alone it says nothing.
    func spreadWithoutHosts(_ entries: Entries) {
        if let node = entries["spread"], entries["hosts"] == nil {
            report(node.mark, "'spread' says how the devices are dealt over 'hosts': give 'hosts' too")
        }
    }

    private func location(of node: Node) -> SourceLocation {
        SourceLocation(file: file, line: node.mark.line, column: node.mark.column)
    }
}
