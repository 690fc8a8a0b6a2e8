import Report
import Scenario
import Transport

/// SIGHUP (`systemctl reload`): the scenario files read again and applied to the running fleet,
/// checked as a run's are at its start.
extension Fleet {
    /// The scenario `files` read again, as the run read them (`environment`, and `overridden`:
    /// the keys the command line gives), and applied as `reload(loading:)` applies them.
    public func reload(_ files: [String], environment: [String: String], overridden: Set<String> = []) -> Reload {
        control.logger.info("reloading " + files.joined(separator: ", "))
        return reload { errors in ScenarioFiles.load(files, environment: environment, overridden: overridden, errors: errors) }
    }

    /// The scenarios `load` gives, planned with the run's settings and checked as at the start
    /// (ids, TLS files, credentials, and a load profile that must not change), then applied
    /// (`reload(to:)`). Scenarios that do not load (`load` handed each problem to its argument
    /// and gave `nil`), or a plan that fails a check, leave the fleet as it is, with every
    /// error logged and the reason in the report.
    public func reload(loading load: (_ errors: (String) -> Void) -> [Scenario]?) -> Reload {
        let logger = control.logger
        var errors: [String] = []
        let collect = { (line: String) in errors.append(Text.trimmed(line)) }
        guard let scenarios = load(collect) else {
            for error in errors { logger.error(error) }
            return reloadFailed("the scenario files have \(Text.counted(errors.count, "error"))")
        }
        let plan = FleetPlan(scenarios: scenarios, settings: settings)
        guard ScenarioFiles.checkIDs(plan, errors: collect) else {
            for error in errors { logger.error(error) }
            return reloadFailed("the scenario files have \(Text.counted(errors.count, "clash", plural: "clashes")) of ids")
        }
        guard ScenarioFiles.checkTLSFiles(plan, errors: collect) else {
            for error in errors { logger.error(error) }
            return reloadFailed("the scenarios' TLS files have \(Text.counted(errors.count, "problem"))")
        }
        do throws(RunCheckError) {
            try RunChecks.checkCredentials(plan)
            // As at the start: a source address not of this machine would replace every
            // connection with one that never connects.
            try RunChecks.checkHosts(plan, settings: settings)
            try RunChecks.checkBindAddresses(plan, settings: settings)
        } catch {
            return reloadFailed(error.message)
        }
        if let error = profileChange(to: plan) {
            logger.error(error)
            return reloadFailed(error)
        }
        plan.prepareTLSContexts()
        let reloaded = reload(to: plan)
        // The contexts of identities the plan no longer has: with a certificate per device,
        // ~20 KB each, at every reload. A connection keeps the one it holds.
        if reloaded.error == nil {
            TLSContexts.release(allBut: Set(plan.connections.compactMap(\.options.tls) + plan.tlsUses.map(\.settings)))
        }
        return reloaded
    }
}
