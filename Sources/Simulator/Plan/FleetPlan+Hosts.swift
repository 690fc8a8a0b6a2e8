import MQTT
import Scenario

/// Where each connection goes and comes from: its home node of a cluster (`broker.hosts`, a
/// `--url` list) and its source address (`broker.bind`, `--bind`).
extension FleetPlan {
    /// The cluster's nodes the connections of `scenario` are spread over, `nil` for one broker:
    /// the command line's `--url` list, or else the file's `hosts` unless `--url` or `--host`
    /// names one broker.
    static func hosts(of scenario: Scenario, settings: RunSettings) -> BrokerHosts? {
        if let hosts = settings.hosts { return hosts }
        guard settings.url == nil, settings.host == nil else { return nil }
        return scenario.broker.hosts
    }

    /// The source addresses of `scenario`'s connections, `nil` for the kernel's choice.
    static func bind(of scenario: Scenario, settings: RunSettings) -> BindAddresses? {
        settings.bind ?? scenario.broker.bind
    }

    /// Sets where a connection goes and comes from. `slot` is its place among `scenario`'s
    /// connections in the whole fleet (0-based; round-robin and the source addresses deal by
    /// it), `key` what a spread by device hashes (the device's id; a shared connection's or a
    /// subscriber's client id; an edge node's id). An entry without a port takes `options`'
    /// (the scenario's `port`, or the transport's default).
    static func place(_ options: inout ClientOptions, scenario: Scenario, settings: RunSettings, slot: Int, key: String) {
        if let bind = bind(of: scenario, settings: settings) { options.bindAddress = bind.address(of: slot) }
        guard let hosts = hosts(of: scenario, settings: settings), !hosts.entries.isEmpty else { return }
        let addresses = hosts.entries.map { BrokerAddress(host: $0.host, port: $0.port.map(Int32.init) ?? options.port) }
        let home = addresses[hosts.spread.host(of: key, index: slot, among: addresses.count)]
        options.host = home.host
        options.port = home.port
        options.hosts = addresses.count > 1 ? addresses : []
    }
}
