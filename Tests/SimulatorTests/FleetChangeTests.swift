import Report
import Scenario
import Simulator
import Testing

/// Issue 13, item 5: what a reload or a scale does, group by group and connection by connection,
/// before any of it is carried out.
@Suite struct FleetChangeTests {
    private static func plan(_ yaml: String) throws -> FleetPlan {
        try SimulatorTests.plan(yaml: "name: site\n" + yaml, file: "site.yaml")
    }

    private static func running(_ plan: FleetPlan) -> [FleetChange.Running] {
        plan.groupPlans.enumerated().map { index, group in
            .init(plan: group, connections: Set(plan.connections.filter { $0.group == index }.map(\.key)))
        }
    }

    private static func group(_ name: String, count: Int = 1, publish: String = "1/s", extra: String = "") -> String {
        """
          - name: \(name)
            count: \(count)
            topic: "t/{id}"
            publish: \(publish)\(extra)
            payload: { fields: { seq: { counter: 0 } } }

        """
    }

    @Test func eachGroupIsAddedRemovedChangedOrLeftAlone() throws {
        let before = try Self.plan("devices:\n" + Self.group("keep", count: 2) + Self.group("drop") + Self.group("change"))
        // Written lower down in the file (a comment above it): where a group is written is no change.
        let after = try Self.plan(
            "# moved\ndevices:\n" + Self.group("change", publish: "5/s") + Self.group("keep", count: 2) + Self.group("fresh", count: 3))
        let change = FleetChange(running: Self.running(before), new: after)
        #expect(change.names(.unchanged) == ["keep"])
        #expect(change.names(.changed) == ["change"])
        #expect(change.names(.added) == ["fresh"])
        #expect(change.names(.removed) == ["drop"])
        let changed = try #require(change.groups.first { $0.plan.name == "change" })
        #expect(changed.retiring.count == 1 && changed.opening.count == 1)
        #expect(changed.opening[0].replaces == changed.retiring[0], "the successor waits for the client id it takes over")
        let kept = try #require(change.groups.first { $0.plan.name == "keep" })
        #expect(kept.retiring.isEmpty && kept.opening.isEmpty, "no connection of an unchanged group is touched")
        #expect(
            change.groups.first { $0.plan.name == "fresh" }?.opening.map { $0.plan.devices[0].id } == ["fresh-1", "fresh-2", "fresh-3"])
        #expect(change.groups.first { $0.plan.name == "drop" }?.retiring.count == 1)
        #expect(FleetChange(running: Self.running(after), new: after).isEmpty)
    }

    @Test func aNewCountKeepsTheConnectionsBothPlansHave() throws {
        let before = try Self.plan("devices:\n" + Self.group("room", count: 3))
        let more = FleetChange(running: Self.running(before), new: try Self.plan("devices:\n" + Self.group("room", count: 5)))
        let grown = try #require(more.groups.first)
        #expect(grown.kind == .scaled && grown.retiring.isEmpty)
        #expect(grown.opening.map { $0.plan.devices[0].id } == ["room-4", "room-5"], "ids continue the template")
        #expect(grown.opening.allSatisfy { $0.replaces == nil })
        let fewer = FleetChange(running: Self.running(before), new: try Self.plan("devices:\n" + Self.group("room", count: 1)))
        let shrunk = try #require(fewer.groups.first)
        #expect(shrunk.kind == .scaled && shrunk.opening.isEmpty)
        #expect(shrunk.retiring.map { FleetChange.clientID(ofKey: $0) } == ["room-2", "room-3"])
    }

    @Test func aSharedConnectionWhoseDevicesChangeIsReplaced() throws {
        let shared = "\n    connection: { shared: 2 }"
        let before = try Self.plan("devices:\n" + Self.group("hub", count: 4, extra: shared))
        let change = FleetChange(
            running: Self.running(before), new: try Self.plan("devices:\n" + Self.group("hub", count: 6, extra: shared)))
        let group = try #require(change.groups.first)
        #expect(group.kind == .scaled)
        #expect(group.retiring.count == 2 && group.opening.count == 2, "both connections are dealt new devices")
        #expect(Set(group.opening.compactMap(\.replaces)) == Set(group.retiring), "each waits for its predecessor to leave")
    }

    /// A group is known by its name: moved to another file, it is the same group, changed (its
    /// scenario's broker may differ), never one added and one removed under one name.
    @Test func aGroupMovedToAnotherFileIsChanged() throws {
        let before = try Self.plan("devices:\n" + Self.group("room"))
        let moved = FleetPlan(
            scenarios: [
                try scenario(yaml: "name: other\ndevices:\n" + Self.group("room"), file: "other.yaml")
            ],
            settings: RunSettings())
        let change = FleetChange(running: Self.running(before), new: moved)
        #expect(change.groups.map(\.kind) == [.changed], "\(change.groups.map(\.kind))")
    }

    @Test func aChangeOfAGeneratorsParameterIsAChange() throws {
        let sine = { (amplitude: Int) in
            "devices:\n  - name: s\n    topic: t\n    publish: 1/s\n    payload: { fields: { v: { sine: { min: 0, max: \(amplitude), period: 10s } } } }\n"
        }
        let change = FleetChange(running: Self.running(try Self.plan(sine(2))), new: try Self.plan(sine(3)))
        #expect(change.names(.changed) == ["s"])
    }
}
