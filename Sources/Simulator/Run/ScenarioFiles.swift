import Scenario

/// Loading the scenarios a command names, the same way for every command and for a reload.
public enum ScenarioFiles {
    /// Every file loaded, or `nil` after every problem of every file was handed to `errors`.
    /// `overridden`: the dotted paths the command line gives values for (`broker.host`).
    public static func load(
        _ files: [String], environment: [String: String], overridden: Set<String> = [], errors: (String) -> Void
    ) -> [Scenario]? {
        var scenarios: [Scenario] = []
        var invalid = false
        for file in files {
            do {
                scenarios.append(try ScenarioLoader.load(file: file, environment: environment, overridden: overridden))
            } catch {
                invalid = true
                for diagnostic in error.diagnostics { errors("\(diagnostic)\n") }
            }
        }
        return invalid ? nil : scenarios
    }

    /// Ids that two devices or connections of `plan` would share, handed to `errors`; whether
    /// there were none.
    public static func checkIDs(_ plan: FleetPlan, errors: (String) -> Void) -> Bool {
        for diagnostic in plan.conflicts { errors("\(diagnostic)\n") }
        return plan.conflicts.isEmpty
    }

    /// Every problem with the TLS files `plan`'s connections would use, handed to `errors`;
    /// whether there were none. Reads the files.
    public static func checkTLSFiles(_ plan: FleetPlan, errors: (String) -> Void) -> Bool {
        let problems = TLSUse.problems(of: plan.tlsUses)
        for diagnostic in problems { errors("\(diagnostic)\n") }
        return problems.isEmpty
    }

    /// A trial of each device script of `plan`, before anything connects: the first device of
    /// each scripted group started, connected and ticked twice on a virtual clock, as its dry run
    /// would, so that a hook that fails, or answers in the wrong shape, is said at its script's
    /// file and line; whether none did. What only later ticks show is counted in the run.
    public static func checkScripts(_ plan: FleetPlan, errors: (String) -> Void) -> Bool {
        var problems: [String] = []
        for device in Sample.firstDevicePlans(of: plan) where device.script != nil {
            var said: Set<String> = []
            let host = ScriptHost(logger: nil, countsFailures: false) { message, key in
                if said.insert(key).inserted { problems.append(message) }
            }
            Sample.forEachTick(of: device, in: plan, seed: 0, count: 2, wallStart: 0, scripts: host) { _ in }
        }
        for problem in problems { errors("error: \(problem)\n") }
        return problems.isEmpty
    }
}
