import Scenario
import Transport

extension RunChecks {
    /// Each source address (`broker.bind`, `--bind`) must be one of this machine's: a
    /// `bind(2)` to it now says so in one sentence, rather than every connect failing after.
    static func checkBindAddresses(_ plan: FleetPlan, settings: RunSettings) throws(RunCheckError) {
        let binds = settings.bind.map { [$0] } ?? plan.scenarios.compactMap(\.broker.bind)
        for bind in binds {
            for address in bind.addresses {
                if let problem = SourceAddress.check(address) {
                    throw RunCheckError("\(bind.origin(of: address)): \(problem); give addresses this machine has (ip address shows them)")
                }
            }
        }
    }

    /// A cluster's nodes (`broker.hosts`, a `--url` list) with what has one broker only.
    static func checkHosts(_ plan: FleetPlan, settings: RunSettings) throws(RunCheckError) {
        if settings.hosts != nil, let scenario = plan.scenarios.first(where: { $0.broker.azureIoTHub != nil }) {
            throw RunCheckError(
                "\(scenario.file): broker.azureIoTHub connects to the hub, one host: --url takes one URL for it, not a list")
        }
    }
}
