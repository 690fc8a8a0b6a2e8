import MQTT

/// `broker.azureIoTHub`, and what it rules out in the rest of the scenario: each refusal is
/// something the hub itself would refuse, found at load rather than as a closed connection.
extension ScenarioReader {
    /// The block; `broker` holds the keys beside it, some of which it implies.
    func azureIoTHub(_ node: Node, beside broker: Entries) -> AzureIoTHub? {
        let what = "'azureIoTHub'"
        guard let entries = entries(node, of: what, known: ScenarioKeys.azureIoTHub.keys) else { return nil }
        let hub = string(entries["hub"], "hub")
        if let hub, let problem = BrokerHost.problem(with: hub), let node = entries["hub"] {
            report(node.mark, "expected the hub's host name, such as NAME.azure-devices.net, for 'hub': \(problem)")
        }
        if entries["hub"] == nil { missing("hub", in: entries, of: what) }
        var key: AzureIoTHub.Key?
        switch (entries["deviceKey"], entries["groupKey"]) {
        case (let device?, nil): key = base64Key(device, "deviceKey").map(AzureIoTHub.Key.device)
        case (nil, let group?): key = base64Key(group, "groupKey").map(AzureIoTHub.Key.group)
        case (_?, let group?):
            report(group.mark, "give 'deviceKey' (every device's key) or 'groupKey' (a DPS enrollment group's), not both")
        case (nil, nil):
            report(entries.mark, "missing 'deviceKey' or 'groupKey' in \(what): the key each device's SAS token is signed with")
        }
        var lifetime = AzureIoTHub.defaultLifetime
        if let node = entries["tokenLifetime"], let seconds = duration(node, "tokenLifetime") {
            if Durations.duration(seconds: seconds) < AzureIoTHub.minimumLifetime {
                report(
                    node.mark,
                    "expected at least 10s for 'tokenLifetime', found \(node.summary): each token is renewed by a reconnection at 80 % of it"
                )
            } else {
                lifetime = Durations.duration(seconds: seconds)
            }
        }
        let apiVersion = string(entries["apiVersion"], "apiVersion") ?? AzureIoTHub.defaultAPIVersion
        checkImplied(by: broker)
        guard let hub, let key, !apiVersion.isEmpty else { return nil }
        return AzureIoTHub(hub: hub, key: key, tokenLifetime: lifetime, apiVersion: apiVersion)
    }

    /// A key must be base64 (as the Azure portal shows it): a typo is found here, not as a
    /// refusal by the hub.
    private func base64Key(_ node: Node, _ name: String) -> String? {
        guard let text = string(node, name) else { return nil }
        if let problem = AzureIoTHub.keyProblem(text) {
            // Never the key itself: it is a secret.
            report(node.mark, "expected a base64 key for '\(name)', as the Azure portal shows it: \(problem)")
            return nil
        }
        return text
    }

    /// The broker keys the block sets itself, or that the hub does not take.
    private func checkImplied(by broker: Entries) {
        for name in ["username", "password"] {
            guard let node = broker[name] else { continue }
            report(
                node.mark,
                "'\(name)' with 'azureIoTHub', which sets it: the user name is <hub>/<id>/?api-version=…, the password each device's SAS token"
            )
        }
        if let node = broker["protocol"], node.scalarText != ProtocolVersion.v311.name {
            // MQTT 5 is in preview at Azure IoT Hub, with topics and authentication of its own;
            // the hub's MQTT 3.1.1 is what its devices and SDKs speak.
            report(
                node.mark,
                "expected 'mqtt311' for 'protocol' with 'azureIoTHub': Azure IoT Hub speaks MQTT 3.1.1 (its MQTT 5 is a preview with other topics)"
            )
        }
        // The hub's WebSocket is on 443 at /$iothub/websocket, which devsim has not been tried
        // against: refused rather than sent to 8883 and /mqtt (found by review).
        if let node = broker["transport"] ?? broker["url"],
            node.scalarText == BrokerTransport.websockets.rawValue
                || node.scalarText?.hasPrefix("ws") == true
        {
            report(node.mark, "MQTT over WebSockets with 'azureIoTHub' is not supported: connect over TCP with TLS on 8883")
        }
        if let node = broker["keepalive"], let seconds = duration(node, "keepalive"),
            Durations.duration(seconds: seconds) > AzureIoTHub.maximumKeepalive
        {
            report(
                node.mark,
                "expected at most 1177s for 'keepalive' with 'azureIoTHub': the hub closes a connection idle for 1.5 × keepalive, at most 1767 s"
            )
        }
    }

    /// What the hub refuses of a device group, or of the scenario's other connections, reported
    /// at the group (or, for a group of an included file, at `node`, the block, naming it).
    func checkAzureIoTHub(_ azure: AzureIoTHub, groups: [DeviceGroup], top: Entries) {
        let mark = top["broker"]?.mark ?? top.mark
        for group in groups {
            let at = group.location.flatMap { $0.file == file ? Mark(line: $0.line, column: $0.column) : nil } ?? mark
            let what = "device group '\(group.name)'" + (group.location.flatMap { $0.file == file ? nil : " (\($0))" } ?? "")
            if group.qos == .exactlyOnce {
                report(at, "\(what) publishes at qos 2, which Azure IoT Hub does not take (it closes the connection): use qos 0 or 1")
            }
            if group.retain {
                report(at, "\(what) publishes with retain, which Azure IoT Hub does not keep: leave 'retain' out")
            }
            if group.clientID.source != "{id}" {
                report(at, "\(what) sets 'clientId': with 'azureIoTHub' each device connects as its id ({id}), the identity its key is for")
            }
            if case .shared = group.connection {
                report(at, "\(what) shares connections: with 'azureIoTHub' each device connects as itself, one connection per device")
            }
            if group.availability != nil || group.discovery != nil {
                report(at, "\(what) has 'availability' or 'discovery': Azure IoT Hub takes no topics but its own")
            }
            if group.commands != nil {
                report(
                    at,
                    "\(what) has 'commands': with 'azureIoTHub' a device's commands come on the hub's own topics (cloud-to-device messages and direct methods): leave 'commands' out"
                )
            }
        }
        for key in ["subscribers", "verify", "control"] {
            guard let node = top[key] else { continue }
            report(
                node.mark,
                "'\(key)' with 'azureIoTHub': the hub lets a device subscribe only to its own cloud-to-device topics, not to others' telemetry"
            )
        }
    }
}
