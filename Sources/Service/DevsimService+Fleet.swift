import Report
import Simulator

/// The service of a running fleet, wired one way for `devsim run --http` and for the tests that
/// run a fleet and its service in-process.
extension DevsimService {
    /// Listens now, for `fleet`: the routes read the fleet as of each request and its report
    /// (of `scenarios`, `seed` and the settings' shard), the group commands go to the fleet, and
    /// the commands a control topic carried out are told on `/api/events` too.
    package convenience init(settings: Settings, fleet: Fleet, scenarios: [String], seed: UInt64) throws(HTTPServerError) {
        let shard = settings.shard
        try self.init(
            settings: settings,
            view: {
                let live = fleet.live()
                return View(live: live) {
                    var report = RunReport(result: live.result, scenarios: scenarios, seed: seed)
                    report.shard = shard
                    return report
                }
            },
            control: { command, group throws(GroupCommandError) in try fleet.perform(command, group: group) })
        fleet.observeCommands { [weak self] command, group, connections in
            self?.noteCommand(command, group: group, connections: connections)
        }
    }
}
