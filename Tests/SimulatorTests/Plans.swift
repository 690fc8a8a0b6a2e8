import Scenario
import Simulator

/// The scenario `yaml`, loaded as if from `file` (which is not read: it names the scenario's
/// places, and its folder is where relative paths start), with no environment.
func scenario(yaml: String, file: String = "test.yaml") throws(ScenarioError) -> Scenario {
    try ScenarioLoader.load(text: yaml, file: file, environment: [:])
}

/// The plan of a run of the scenario `yaml` (loaded as `scenario(yaml:file:)` does) with
/// `settings`: the one way the tests make a plan from a scenario's text.
func plan(yaml: String, file: String = "test.yaml", settings: RunSettings = RunSettings()) throws(ScenarioError) -> FleetPlan {
    FleetPlan(scenarios: [try scenario(yaml: yaml, file: file)], settings: settings)
}
