import MQTT
import Scenario
import Signals

/// What a run must not start with: ids two devices or connections would share, groups of one
/// name, devices that hear their own messages, groups that cannot follow the stages.
extension FleetPlan {
    /// Device groups of two files with one name: each file's loader refused its own. A group's
    /// figures are kept, shown and commanded under its name alone (`/metrics` would repeat a
    /// series, which Prometheus refuses).
    static func nameConflicts(of scenarios: [Scenario]) -> [Diagnostic] {
        var first: [String: SourceLocation] = [:]
        var conflicts: [Diagnostic] = []
        for scenario in scenarios {
            for group in scenario.groups {
                let place = group.location ?? SourceLocation(file: scenario.file, line: 1, column: 1)
                guard let earlier = first[group.name] else {
                    first[group.name] = place
                    continue
                }
                conflicts.append(
                    Diagnostic(
                        file: place.file, line: place.line, column: place.column,
                        message: "device group name '\(group.name)' is also used at \(earlier); a run keeps each group's figures "
                            + "under its name: give the groups different names"))
            }
        }
        return conflicts
    }

    /// A device group whose devices' command topics take in what the devices publish
    /// themselves (`CommandPlan.echo`), at the group, naming the first such device's topics.
    static func echoConflict(in connections: [ConnectionPlan], group: String, at place: SourceLocation) -> Diagnostic? {
        for device in connections.lazy.flatMap(\.devices) {
            guard let commands = device.commands, let topic = commands.echo(of: device) else { continue }
            return Diagnostic(
                file: place.file, line: place.line, column: place.column,
                message: "device group '\(group)' listens for commands on '\(commands.filter)', which takes in its own "
                    + "'\(topic)': what a device publishes would come back to it as a command; give the commands a topic "
                    + "of their own")
        }
        return nil
    }

    /// What a file's loader could not see of the groups of other files that follow its stages
    /// (a run has one load profile, whichever file gives it): a rate to ramp, no lifecycle
    /// under `devices` stages, and a fleet whose count those stages reach and never pass.
    static func followingConflicts(of scenarios: [Scenario]) -> [Diagnostic] {
        guard let owner = scenarios.first(where: { !$0.stages.isEmpty }), scenarios.count > 1 else { return [] }
        let stages = owner.stages
        var conflicts: [Diagnostic] = []
        func conflict(at place: SourceLocation?, _ message: String) {
            let place = place ?? SourceLocation(file: owner.file, line: 1, column: 1)
            conflicts.append(Diagnostic(file: place.file, line: place.line, column: place.column, message: message))
        }
        // The owner's own groups its loader checked already.
        let others = scenarios.filter { $0.file != owner.file }.flatMap(\.groups).filter(\.stages.isEmpty)
        for group in others {
            if !group.publish.perSecond.isFinite {
                conflict(
                    at: group.location,
                    "device group '\(group.name)' publishes at max, and follows the stages of \(owner.file): it has no rate to ramp")
            }
            if group.lifecycle != nil, stages.setsDevices {
                conflict(
                    at: group.location,
                    "device group '\(group.name)' has a 'lifecycle' and follows the 'devices' stages of \(owner.file): "
                        + "either the stages or the lifecycle say when a device is connected, not both")
            }
        }
        let count = scenarios.flatMap(\.groups).filter(\.stages.isEmpty).reduce(0) { $0 + $1.count }
        if stages.setsDevices, !others.isEmpty, stages.devicePeak(count: count) != count {
            conflict(
                at: stages[0].location,
                "the 'devices' stages count the run's fleet of \(count) devices (the groups of every file without stages of "
                    + "their own), and reach \(stages.devicePeak(count: count)): make the peak \(count), or the counts add up to it")
        }
        return conflicts
    }

    /// Who first used each id of one kind, and the clashes found.
    struct Claims {
        struct Owner {
            var group: String
            var location: SourceLocation
            /// What the group is, and what each of its ids is for, in messages.
            var kind = "device group"
            var member = "device"
        }

        let kind: String
        let consequence: String
        /// The group key whose template makes these ids, and what makes them differ per device.
        let template: String
        let placeholders: String
        var owners: [String: Owner] = [:]
        var reported: Set<[String]> = []
        var conflicts: [Diagnostic] = []

        mutating func claim(_ id: String, by owner: Owner) {
            guard let first = owners[id] else {
                owners[id] = owner
                return
            }
            guard reported.insert([first.location.description, owner.location.description]).inserted else { return }
            let message =
                first.location == owner.location
                ? "\(kind) '\(id)' is used by more than one \(owner.member) of \(owner.kind) '\(owner.group)'; "
                    + "\(consequence): put \(placeholders) in '\(template)'"
                : "\(kind) '\(id)' of \(owner.kind) '\(owner.group)' is also used by \(first.kind) '\(first.group)' "
                    + "at \(first.location); \(consequence): give the groups different names, or different '\(template)' templates"
            conflicts.append(
                Diagnostic(
                    file: owner.location.file, line: owner.location.line,
                    column: owner.location.column, message: message))
        }
    }
}
