import Scenario

extension RunSettings {
    /// A load profile is a test of a known length: without `--duration` or `--messages` (or
    /// with `--messages`, when every profile ends at nothing, which would never spend the
    /// budget), the run ends with its last stage. These settings lasting the longest of the
    /// scenario's stages and the groups' own, and that profile; `nil` when the settings keep the
    /// end they have.
    public func lastingTheStages(of plan: FleetPlan) -> (settings: RunSettings, stages: [Stage])? {
        let profiles = ([plan.stages] + plan.scenarios.flatMap(\.groups).map(\.stages)).filter { !$0.isEmpty }
        let stops = profiles.allSatisfy { stages in
            switch stages.last(where: { $0.target != .hold })?.target {
            case .multiplier(0), .devices(0): true
            default: false
            }
        }
        guard let longest = profiles.max(by: { $0.seconds < $1.seconds }), duration == nil, messages == nil || stops else { return nil }
        var settings = self
        settings.duration = Durations.duration(seconds: longest.seconds)
        return (settings, longest)
    }
}
