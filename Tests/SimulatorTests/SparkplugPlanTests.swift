import MQTT
import Scenario
import Signals
@testable import Report
import Testing

@testable import Simulator

/// Issue 28: a Sparkplug group as the plan makes it, one connection an edge node, and the edge
/// node's role, which answers its events with actions, without a broker.
@Suite struct SparkplugPlanTests {
    static let yaml = """
        name: packaging
        broker: { username: "{id}" }
        devices:
          - name: filler
            count: 5
            publish: 1/s
            sparkplug: { groupId: plant, edgeNodeId: "line-{index}", nodes: 2 }
            payload:
              fields:
                speed: { accelerometer: x }
                head: { fields: { temp: { constant: 20, command: set }, on: { bool: 1, command: set } } }
        """

    @Test func eachNodeIsOneConnectionKnownByItsIDWithItsDevicesDealtInTurn() throws {
        let plan = try plan(yaml: Self.yaml)
        #expect(plan.connections.map(\.options.clientID) == ["line-1", "line-2"])
        #expect(plan.connections.map(\.options.username) == ["line-1", "line-2"], "a node's identity is its id")
        #expect(plan.connections.map { $0.devices.map(\.id) } == [["filler-1", "filler-3", "filler-5"], ["filler-2", "filler-4"]])
        #expect(plan.connections[1].devices.map(\.topic) == ["spBv1.0/plant/DDATA/line-2/filler-2", "spBv1.0/plant/DDATA/line-2/filler-4"])
        #expect(plan.connections.map(\.sparkplug?.topic.edgeNodeID) == ["line-1", "line-2"])
        #expect(plan.connections.allSatisfy { $0.options.will == nil }, "the NDEATH is set before each CONNECT")
        #expect(SparkplugNodePlan.firstAliases(of: plan.connections[0].devices) == [1, 4, 7], "three metrics a device, unique in the node")
    }

    @Test func aShardRunsWholeNodes() throws {
        let whole = try plan(
            yaml: Self.yaml.replacingOccurrences(of: "count: 5", with: "count: 40").replacingOccurrences(of: "nodes: 2", with: "nodes: 8"))
        let shards = try (0..<3).map { index in
            var settings = RunSettings()
            settings.shard = Shard(index: index, count: 3)
            return try plan(
                yaml: Self.yaml.replacingOccurrences(of: "count: 5", with: "count: 40").replacingOccurrences(
                    of: "nodes: 2", with: "nodes: 8"), settings: settings)
        }
        let nodes = shards.flatMap { $0.connections.map { ($0.options.clientID ?? "", $0.devices.map(\.id)) } }
        #expect(nodes.count == 8)
        #expect(
            Dictionary(uniqueKeysWithValues: nodes)
                == Dictionary(uniqueKeysWithValues: whole.connections.map { ($0.options.clientID ?? "", $0.devices.map(\.id)) }))
    }

    private func role() throws -> SparkplugRole {
        let connection = try #require(try plan(yaml: Self.yaml).connections.first)
        return try #require(SparkplugRole(plan: connection.sparkplug, devices: connection.devices))
    }

    private func receive(_ role: SparkplugRole, topic: String, _ payload: SparkplugPayload) -> [RoleAction]? {
        Array(topic.utf8).withUnsafeBytes { topicBytes in
            payload.encoded.withUnsafeBytes { payloadBytes in
                role.received(
                    ReceivedMessage(topicBytes: topicBytes, payload: payloadBytes, qos: .atLeastOnce, retain: false), connected: true,
                    now: 5)
            }
        }
    }

    private func writes(_ actions: [RoleAction]?) -> (device: Int, Result<[(field: String, value: CommandValue)], CommandRejection>)? {
        guard case .sparkplug(.write(let device, let writes, _))? = actions?.first else { return nil }
        return (device, writes)
    }

    @Test func theNodeSubscribesToItsCommandsThenIsBornAndSaysItsDeathBeforeADisconnect() throws {
        let role = try role()
        let actions = role.connected(now: 1)
        guard case .subscribe(let filters, let qos) = actions.first, case .sparkplug(.births) = actions.last else {
            Issue.record("not a subscribe then births: \(actions)")
            return
        }
        #expect(filters == ["spBv1.0/plant/NCMD/line-1", "spBv1.0/plant/DCMD/line-1/+"] && qos == .atLeastOnce)
        guard case .sparkplug(.death)? = role.disconnecting(.goingOffline).first else {
            Issue.record("no death before a disconnect")
            return
        }
    }

    @Test func aRebirthIsAskedByATrueRebirthMetricOnly() throws {
        let role = try role()
        let rebirth = SparkplugPayload(metrics: [SparkplugMetric(name: "Node Control/Rebirth", dataType: .boolean, value: .bool(true))])
        guard case .sparkplug(.births)? = receive(role, topic: "spBv1.0/plant/NCMD/line-1", rebirth)?.first else {
            Issue.record("no births after a rebirth")
            return
        }
        let no = SparkplugPayload(metrics: [SparkplugMetric(name: "Node Control/Rebirth", dataType: .boolean, value: .bool(false))])
        #expect(receive(role, topic: "spBv1.0/plant/NCMD/line-1", no)?.isEmpty == true)
        #expect(receive(role, topic: "spBv1.0/plant/NCMD/line-2", rebirth) == nil, "another node's")
    }

    @Test func aDCMDWritesFieldsByNameOrByTheAliasOfItsBirth() throws {
        let role = try role()
        // filler-3 is the node's second device: its aliases are 4 (speed), 5 (head/temp), 6 (head/on).
        let byAlias = SparkplugPayload(metrics: [
            SparkplugMetric(alias: 5, dataType: .double, value: .double(22.5)),
            SparkplugMetric(name: "head/on", dataType: .boolean, value: .bool(false)),
        ])
        let found = try #require(writes(receive(role, topic: "spBv1.0/plant/DCMD/line-1/filler-3", byAlias)))
        #expect(found.0 == 1)
        let assignments = try found.1.get()
        #expect(assignments.map(\.field) == ["head.temp", "head.on"])
        #expect(assignments.map(\.value) == [.number(22.5), .bool(false)])

        let foreign = SparkplugPayload(metrics: [SparkplugMetric(alias: 2, dataType: .double, value: .double(1))])
        let refused = try #require(writes(receive(role, topic: "spBv1.0/plant/DCMD/line-1/filler-3", foreign)))
        #expect(throws: CommandRejection.self) { try refused.1.get() }
        #expect(
            receive(role, topic: "spBv1.0/plant/DCMD/line-1/filler-2", byAlias).map { actions in
                actions.contains { if case .warnOnce = $0 { true } else { false } }
            } == true, "filler-2 is line-2's")
    }
}
