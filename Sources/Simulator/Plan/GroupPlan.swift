import MQTT
import Scenario
import Signals

/// A device group as a running fleet tells it apart from another: by its name, and by
/// everything its connections are made from but its device count.
package struct GroupPlan: Sendable, Equatable {
    /// No other group of a run has it (see `FleetPlan.conflicts`): every figure of the group is
    /// kept and shown under it, so a group a reload brings back, or moves to another file, is
    /// the same group again.
    package var name: String
    /// The group's description, the scenario's broker and offline policy, in one text: equal for
    /// a group whose connections a reload can leave alone, or only add to and take from. Every
    /// part but the place the group is written and its count, which a `scale` changes.
    package var fingerprint: String

    package init(group: DeviceGroup, in scenario: Scenario) {
        name = group.name
        var described = group
        described.location = nil
        described.properties?.location = nil
        described.count = 0
        // A deep dump, not Equatable: the generators are existentials of many types.
        var text = ""
        let stages = scenario.stages.map(\.profile)
        dump((scenario.name, scenario.broker, scenario.offline, stages, described), to: &text)
        fingerprint = text
    }
}
