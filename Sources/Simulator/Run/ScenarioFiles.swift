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
}
