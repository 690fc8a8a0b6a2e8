import Report
import Scenario
import Simulator

/// `devsim validate`: every problem in every file, or silence and exit 0.
enum ValidateCommand {
    static func run(_ files: [String], environment: [String: String], output: (String) -> Void, errors: (String) -> Void) -> ExitCode {
        var valid = true
        for file in files {
            do {
                let scenario = try ScenarioLoader.load(file: file, environment: environment)
                // Each file on its own: files validated together need not be meant to run together.
                let plan = FleetPlan(scenarios: [scenario], settings: RunSettings())
                let uniqueIDs = ScenarioFiles.checkIDs(plan, errors: errors)
                let scriptsWork = ScenarioFiles.checkScripts(plan, errors: errors)
                guard ScenarioFiles.checkTLSFiles(plan, errors: errors), uniqueIDs, scriptsWork else {
                    valid = false
                    continue
                }
                for warning in plan.replayWarnings { errors("warning: \(warning)\n") }
                let devices = scenario.groups.reduce(0) { $0 + $1.count }
                let subscribers = scenario.subscribers.reduce(0) { $0 + $1.count }
                let listening =
                    scenario.subscribers.isEmpty
                    ? ""
                    : ", \(Text.counted(scenario.subscribers.count, "subscriber group")), \(Text.counted(subscribers, "subscriber"))"
                output(
                    "\(file): ok (\(Text.counted(scenario.groups.count, "device group")), \(Text.counted(devices, "device"))\(listening))\n"
                )
            } catch {
                valid = false
                for diagnostic in error.diagnostics { errors("\(diagnostic)\n") }
            }
        }
        return valid ? .success : .usage
    }
}
