import Glibc
import MQTT
import Scenario
import Transport

extension RunChecks {
    /// Each source address (`broker.bind`, `--bind`) must be one of this machine's: a
    /// `bind(2)` to it now says so in one sentence, rather than every connect failing after.
    static func checkBindAddresses(_ plan: FleetPlan, settings: RunSettings) throws(RunCheckError) {
        let binds = settings.bind.map { [$0] } ?? plan.scenarios.compactMap(\.broker.bind)
        // Before the bind(2)s: an address of the other family is refused for that whether or
        // not this machine has it.
        let options =
            plan.connections.map(\.options) + plan.subscribers.flatMap { $0.members.map(\.options) } + plan.controls.map(\.options)
        for bind in binds {
            for address in bind.addresses {
                if let problem = familyMismatch(of: address, in: options) { throw RunCheckError("\(bind.origin(of: address)): \(problem)") }
            }
        }
        for bind in binds {
            for address in bind.addresses {
                if let problem = SourceAddress.check(address) {
                    throw RunCheckError("\(bind.origin(of: address)): \(problem); give addresses this machine has (ip address shows them)")
                }
            }
        }
    }

    /// A connection from `address` to a broker address of the other family fails at every
    /// connect ("Address family not supported by protocol"): why, for the first such broker
    /// of the connections that come from it; `nil` when none. A broker's name may resolve to
    /// either family, and is left to the connect.
    private static func familyMismatch(of address: String, in options: [ClientOptions]) -> String? {
        guard let family = SourceAddress.family(of: address) else { return nil }
        for connection in options where connection.bindAddress == address {
            let brokers = connection.hosts.isEmpty ? [BrokerAddress(host: connection.host, port: connection.port)] : connection.hosts
            for broker in brokers {
                guard let other = SourceAddress.family(of: broker.host), other != family else { continue }
                let (mine, theirs) = family == AF_INET6 ? ("IPv6", "IPv4") : ("IPv4", "IPv6")
                return "\(address) is an \(mine) address and the broker \(broker) an \(theirs) one: "
                    + "no connection goes from one family to the other; give \(theirs) source addresses"
            }
        }
        return nil
    }

    /// A cluster's nodes (`broker.hosts`, a `--url` list) with what has one broker only.
    static func checkHosts(_ plan: FleetPlan, settings: RunSettings) throws(RunCheckError) {
        if settings.hosts != nil, let scenario = plan.scenarios.first(where: { $0.broker.azureIoTHub != nil }) {
            throw RunCheckError(
                "\(scenario.file): broker.azureIoTHub connects to the hub, one host: --url takes one URL for it, not a list")
        }
    }
}
