import MQTT
import Scenario
import Signals

extension FleetPlan {
    /// Why a running fleet of this plan cannot become `next`, as a sentence; `nil` when it can.
    /// A load profile is fixed for the run (its length, its report): the scenario's stages and
    /// each group's own stay as they are. Under `devices` stages the groups' counts stay too:
    /// each device's presence is made from them, and the scenario's share the fleet's count
    /// among every group that follows them.
    package func profileChange(to next: FleetPlan) -> String? {
        let profile = { (stages: [Stage]) in stages.map(\.profile) }
        guard profile(stages) == profile(next.stages) else {
            return "the stages changed: a running load profile, its length and its report, cannot change; restart the run"
        }
        let groups = Dictionary(scenarios.flatMap(\.groups).map { ($0.name, $0) }) { first, _ in first }
        let nextGroups = next.scenarios.flatMap(\.groups).map { ($0.name, $0) }
        for (name, group) in nextGroups {
            guard let old = groups[name] else { continue }
            guard profile(old.stages) == profile(group.stages) else {
                return "device group '\(group.name)': its stages changed: a running load profile cannot change; restart the run"
            }
            if old.stages.setsDevices, old.count != group.count {
                return "device group '\(group.name)' follows 'devices' stages, which set how many of its devices are in: "
                    + "its count cannot change while it runs; restart the run"
            }
        }
        if stages.setsDevices {
            let following = { (groups: [(String, DeviceGroup)]) in
                groups.filter { $0.1.stages.isEmpty }.map { "\($0.0)=\($0.1.count)" }.sorted()
            }
            guard following(Array(groups)) == following(nextGroups) else {
                return "the scenario's 'devices' stages share the fleet's count among the groups that follow them: "
                    + "a reload cannot change those groups or their counts; restart the run"
            }
        }
        return nil
    }
}
