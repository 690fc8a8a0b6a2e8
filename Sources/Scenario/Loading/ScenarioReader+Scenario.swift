extension ScenarioReader {
    /// The whole scenario; `nil` when anything was reported.
    func scenario(_ root: Node, defaultName: String) -> Scenario? {
        guard let top = entries(root, of: "the scenario", known: ["name", "broker", "offline", "devices"]) else {
            return nil
        }
        let name = string(top["name"], "name")
        let broker = top["broker"].map(broker) ?? BrokerSettings()
        let offline = top["offline"].map(offline) ?? .drop
        let groups = devices(top["devices"], in: top)
        guard diagnostics.isEmpty, let offline else { return nil }
        return Scenario(name: name ?? defaultName, file: file, broker: broker, offline: offline, groups: groups)
    }
}
