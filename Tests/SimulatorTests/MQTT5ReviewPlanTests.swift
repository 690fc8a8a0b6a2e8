import Report
import Scenario
import Simulator
import Testing

/// Found in a review of issue 29, item 1 (MQTT 5 properties and topic aliases), without a broker.
@Suite struct MQTT5ReviewPlanTests {
    private static func plan(_ yaml: String) throws -> FleetPlan {
        try SimulatorTests.plan(yaml: yaml, file: "site.yaml")
    }

    private static let group = """
        broker: { protocol: mqtt5 }
        devices:
          - name: meter
            topic: "plant/{id}"
            publish: 1/s
            properties: { contentType: text/plain, topicAlias: auto }
            payload: { fields: { power: { constant: 5 } } }
        """

    private static func running(_ plan: FleetPlan) -> [FleetChange.Running] {
        plan.groupPlans.enumerated().map { index, group in
            .init(plan: group, connections: Set(plan.connections.filter { $0.group == index }.map(\.key)))
        }
    }

    /// Where `properties` is written is no change, as where its group is written is none: a
    /// reload after a comment went in above it leaves the group's connections alone (before the
    /// fix, `properties`' place was in the group's fingerprint, and every connection restarted).
    @Test func aReloadThatOnlyMovesThePropertiesLeavesTheGroupAlone() throws {
        let before = try Self.plan(Self.group)
        let moved = try Self.plan("# a comment\n" + Self.group)
        #expect(FleetChange(running: Self.running(before), new: moved).names(.unchanged) == ["meter"])
        let changed = try Self.plan(Self.group.replacingOccurrences(of: "text/plain", with: "application/json"))
        #expect(FleetChange(running: Self.running(before), new: changed).names(.changed) == ["meter"])
    }

    /// The bytes the aliases saved go down at each topic's first PUBLISH on a connection (topic
    /// and alias both): a figure that goes down is a gauge in `/metrics`, since a Prometheus
    /// counter that falls reads as a reset (before the fix: a counter at -3 after the first tick).
    @Test func theBytesSavedAreAGauge() {
        #expect(Figure.aliasBytesSaved.isGauge)
    }
}
