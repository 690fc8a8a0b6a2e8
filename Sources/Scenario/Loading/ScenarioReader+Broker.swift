import MQTT

extension ScenarioReader {
    func broker(_ node: Node) -> BrokerSettings {
        var settings = BrokerSettings()
        guard
            let entries = entries(
                node, of: "'broker'",
                known: ScenarioKeys.broker.keys)
        else { return settings }

        settings.host = string(entries["host"], "host")
        if let host = settings.host, let problem = BrokerHost.problem(with: host), let node = entries["host"] {
            report(node.mark, "expected a host name or address for 'host': \(problem)")
            settings.host = nil
        }
        settings.port = integer(entries["port"], "port", in: 1...65535)
        settings.protocol = choice(entries["protocol"], "protocol", ProtocolVersion.allCases.map(\.name))
            .flatMap(ProtocolVersion.init(name:))
        settings.keepalive = keepalive(entries["keepalive"])
        settings.cleanSession = bool(entries["cleanSession"], "cleanSession")
        settings.username = credential(entries["username"], "username")
        settings.password = credential(entries["password"], "password")
        settings.tls = entries["tls"].flatMap { tls($0, perDevice: true) }
        settings.credentials = entries["credentials"].flatMap(credentials)
        for key in ["username", "password"] where entries["credentials"] == nil {
            if let node = entries[key], Template(node.templateText ?? "").usesToken {
                report(node.mark, "'{token}' in '\(key)' is each device's token from a credentials file: give 'credentials' too")
            }
        }
        settings.will = entries["will"].flatMap(will)
        settings.reconnect = entries["reconnect"].flatMap(reconnect)
        settings.ackTimeout = duration(entries["ackTimeout"], "ackTimeout", positive: true).map(Durations.duration(seconds:))
        settings.onAckTimeout = choice(entries["onAckTimeout"], "onAckTimeout", AckTimeoutAction.allCases.map(\.rawValue))
            .flatMap(AckTimeoutAction.init(rawValue:))
        if let node = entries["onAckTimeout"], entries["ackTimeout"] == nil {
            report(node.mark, "'onAckTimeout' says what a message waiting longer than 'ackTimeout' does; give 'ackTimeout' too")
        }
        settings.transport = choice(entries["transport"], "transport", BrokerTransport.allCases.map(\.rawValue))
            .flatMap(BrokerTransport.init(rawValue:))
        if let node = entries["path"], let path = string(node, "path") {
            if !path.hasPrefix("/") {
                report(node.mark, "expected a path beginning with '/' for 'path', found \(node.summary)")
            } else if settings.transport != .websockets, entries["url"] == nil {
                report(node.mark, "'path' is the WebSocket's path: give 'transport: websockets' too")
            } else {
                settings.path = path
            }
        }
        if let node = entries["url"] { url(node, entries, into: &settings) }
        settings.azureIoTHub = entries["azureIoTHub"].flatMap { azureIoTHub($0, beside: entries) }
        settings.bind = entries["bind"].flatMap(bind)
        settings.properties = entries["properties"].flatMap(connectProperties)
        if let node = entries["hosts"] { hosts(node, entries, into: &settings) }
        spreadWithoutHosts(entries)
        return settings
    }

    /// `url: wss://broker.example/mqtt`: host, port, TLS and transport in one, so none of those
    /// keys may be beside it.
    private func url(_ node: Node, _ entries: Entries, into settings: inout BrokerSettings) {
        guard let text = string(node, "url") else { return }
        let url: BrokerURL
        do throws(BrokerURLError) {
            url = try BrokerURL.parse(text)
        } catch {
            return report(node.mark, "expected a broker URL for 'url': \(error.message)")
        }
        let beside = ["host", "port", "transport", "path"].filter { entries[$0] != nil }
        guard beside.isEmpty else {
            let keys = beside.map { "'\($0)'" }.joined(separator: ", ")
            return report(node.mark, "'url' gives the host, port, transport and path: leave out \(keys), or 'url'")
        }
        if let username = url.username, entries["username"] != nil {
            return report(node.mark, "'url' gives the user name '\(username)', and so does 'username': keep one")
        }
        if !url.scheme.isSecure, let tlsNode = entries["tls"] {
            return report(
                tlsNode.mark, "'tls' with a \(url.scheme.rawValue):// URL, which has no TLS: use \(url.scheme == .ws ? "wss" : "mqtts")://")
        }
        settings.host = url.host
        settings.port = url.port
        settings.transport = url.scheme.transport
        settings.path = url.path
        if let username = url.username { settings.username = username }
        if url.scheme.isSecure, settings.tls == nil { settings.tls = TLSSettings() }
    }

    /// libmosquitto refuses a keepalive under 5 s other than 0 (none), and MQTT carries it as a
    /// 16-bit count of whole seconds.
    private func keepalive(_ node: Node?) -> Duration? {
        guard let node, let seconds = duration(node, "keepalive") else { return nil }
        guard seconds == 0 || (5...65535).contains(seconds) && seconds == seconds.rounded() else {
            report(node.mark, "expected 0 (no keepalive) or whole seconds from 5s to 65535s for 'keepalive', found \(node.summary)")
            return nil
        }
        return .seconds(seconds)
    }

    /// A user name or password, a template filled per device (`{token}` from a credentials
    /// file besides a device's placeholders). A password's braces read as a placeholder too,
    /// unless written `{{` or given by the environment (`${PASSWORD}`), which is data.
    private func credential(_ node: Node?, _ key: String) -> String? {
        template(node, key, also: Template.credentialPlaceholders)?.source
    }

    /// A `tls` mapping, whose files' places are kept by its path in `keys` (`broker.tls.ca`).
    /// `perDevice`: each device may have its own certificate and key (`"certs/{id}.pem"`).
    func tls(_ node: Node, _ keys: ScenarioKeys = .tls, perDevice: Bool = false) -> TLSSettings? {
        guard let entries = entries(node, of: "'tls'", known: keys.keys) else { return nil }
        func file(_ name: String) -> String? {
            guard let node = entries[name] else { return nil }
            guard perDevice else {
                guard let text = string(node, name) else { return nil }
                if Template(node.templateText ?? text).placeholders.contains(where: Template.knownPlaceholders.contains) {
                    report(node.mark, "'\(keys.path).\(name)' is one connection's, which has no device to fill '{…}' with")
                    return nil
                }
                return text
            }
            return template(node, name)?.source
        }
        let certificate = file("certificate")
        let key = file("key")
        if (entries["certificate"] == nil) != (entries["key"] == nil) {
            report(entries.mark, "'certificate' and 'key' go together in 'tls': give both or neither")
        }
        for name in ["ca", "certificate", "key"] {
            if let value = entries[name] { locateFile(keys.path + "." + name, at: value) }
        }
        return TLSSettings(
            ca: string(entries["ca"], "ca").map(resolve),
            certificate: certificate.map(resolve),
            key: key.map(resolve),
            insecure: bool(entries["insecure"], "insecure") ?? false,
            alpn: alpn(entries["alpn"]))
    }

    private func will(_ node: Node) -> Will? {
        guard let entries = entries(node, of: "'will'", known: ScenarioKeys.will.keys) else { return nil }
        let topicNode = entries["topic"]
        let topic = self.topic(topicNode, "topic")
        let message = string(entries["message"], "message")
        let qos = self.qos(entries["qos"])
        let retain = bool(entries["retain"], "retain")
        if topicNode == nil { missing("topic", in: entries, of: "'will'") }
        guard let topic else { return nil }
        return Will(topic: topic.source, message: message ?? "", qos: qos ?? .atMostOnce, retain: retain ?? false)
    }

    private func reconnect(_ node: Node) -> ReconnectSettings? {
        guard let entries = entries(node, of: "'reconnect'", known: ScenarioKeys.reconnect.keys) else { return nil }
        let defaults = ReconnectSettings()
        let initial = duration(entries["initial"], "initial", positive: true).map(Durations.duration(seconds:))
        let max = duration(entries["max"], "max", positive: true).map(Durations.duration(seconds:))
        let settings = ReconnectSettings(initial: initial ?? defaults.initial, max: max ?? defaults.max)
        if settings.initial > settings.max {
            report(
                (entries["max"] ?? entries["initial"])?.mark ?? entries.mark,
                "expected 'initial' (\(Self.trimmed(settings.initial / .seconds(1)))s) to be at most 'max' (\(Self.trimmed(settings.max / .seconds(1)))s) in 'reconnect'"
            )
            return nil
        }
        return settings
    }
}
