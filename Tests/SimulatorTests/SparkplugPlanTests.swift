import MQTT
import Mosquitto
import Scenario
import Signals
@testable import Report
import Testing

@testable import Simulator

/// Issue 28: a Sparkplug group as the plan makes it, one connection an edge node, and the edge
/// node's role, which acts on its events through its connection's context, without a broker.
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

    private func role(primaryHost: String? = nil, protocol version: ProtocolVersion = .v311) throws -> SparkplugEdgeNodeRole {
        let yaml =
            primaryHost.map { Self.yaml.replacingOccurrences(of: "nodes: 2 }", with: "nodes: 2, primaryHost: \($0) }") } ?? Self.yaml
        var connection = try #require(try plan(yaml: yaml).connections.first)
        connection.options.protocolVersion = version
        #expect(connection.sparkplug?.primaryHost == primaryHost)
        let sources = connection.devices.map { DeviceBehaviour(plan: $0, seed: 1).source }
        return try #require(SparkplugEdgeNodeRole(plan: connection, sources: sources))
    }

    private func receive(_ role: SparkplugEdgeNodeRole, topic: String, _ payload: SparkplugPayload, _ context: RoleRecorder) -> Bool {
        role.receive(topic, payload.encoded, context)
    }

    /// What the node did, named: `births` (its NBIRTH), `leave` (it reconnects by plan for its
    /// host), `awaitHost` (its data held), `death` (its NDEATH), a subscription, a warning.
    private func names(_ effects: [RoleRecorder.Effect]) -> [String] {
        effects.compactMap { effect in
            switch effect {
            case .publish(let topic, _, _, _, _, _) where topic.contains("/NBIRTH/"): "births"
            case .publish(let topic, _, _, _, _, _) where topic.contains("/NDEATH/"): "death"
            case .standing(.reconnecting(.primaryHostOffline)): "leave"
            case .hold(true): "awaitHost"
            case .subscribe(let filters, let qos): "subscribe \(filters.joined(separator: " ")) qos \(qos.rawValue)"
            case .warn(let message, _): "warn: \(message)"
            default: nil
            }
        }
    }

    @Test func theNodeSubscribesToItsCommandsThenIsBornAndSaysItsDeathBeforeADisconnect() throws {
        let role = try role()
        let context = RoleRecorder()
        role.connected(context)
        let effects = context.take()
        #expect(effects.first == .subscribe(["spBv1.0/plant/NCMD/line-1", "spBv1.0/plant/DCMD/line-1/+"], .atLeastOnce))
        #expect(names(effects).contains("births"), "\(effects)")
        role.disconnecting(.goingOffline, context)
        #expect(names(context.take()).first == "death", "its death before a disconnect")
    }

    /// Issue 38, item 4: every NCMD is a command: a rebirth asked for, or one rejected with why.
    /// Issue 38, item 3: under MQTT 5 the node's NDEATH at a clean end is its will, which the
    /// DISCONNECT's 0x04 has the broker publish: it publishes none of its own.
    @Test func underMQTT5TheNodesDeathIsItsWill() throws {
        for role in [try role(protocol: .v5), try role(primaryHost: "scada", protocol: .v5)] {
            let context = RoleRecorder()
            role.disconnecting(.goingOffline, context)
            #expect(names(context.take()).isEmpty, "no NDEATH of its own")
            #expect(role.disconnectReason(.goingOffline) == .disconnectWithWill && role.disconnectReason(.leaving) == .disconnectWithWill)
        }
        #expect(
            try role().disconnectReason(.goingOffline) == nil, "under MQTT 3.1.1 its own NDEATH, before a DISCONNECT that discards the will"
        )
    }

    /// Issue 38, item 4: every NCMD is a command: a rebirth asked for, or one rejected with why.
    @Test func aRebirthIsAskedByATrueRebirthMetricOnly() throws {
        let role = try role()
        let context = RoleRecorder()
        let rebirth = SparkplugPayload(metrics: [SparkplugMetric(name: "Node Control/Rebirth", dataType: .boolean, value: .bool(true))])
        #expect(receive(role, topic: "spBv1.0/plant/NCMD/line-1", rebirth, context))
        #expect(names(context.take()) == ["births"], "births after a rebirth")
        #expect(
            context.counters.commands.received == 1 && context.counters.commands.applied == 1 && context.counters.commands.answered == 1)
        let no = SparkplugPayload(metrics: [SparkplugMetric(name: "Node Control/Rebirth", dataType: .boolean, value: .bool(false))])
        #expect(receive(role, topic: "spBv1.0/plant/NCMD/line-1", no, context))
        #expect(
            names(context.take()) == [
                "warn: sparkplug: an NCMD without 'Node Control/Rebirth' true asks nothing of the node, whose one node command that is"
            ])
        #expect(context.counters.commands.rejected == 1)
        #expect(!receive(role, topic: "spBv1.0/plant/NCMD/line-2", rebirth, context), "another node's")
        #expect(role.receive("spBv1.0/plant/NCMD/line-1", [0xFF], context))
        #expect(
            names(context.take()).first?.hasPrefix("warn: sparkplug: a command on 'spBv1.0/plant/NCMD/line-1' is no Sparkplug B payload")
                == true)
    }

    @Test func aDCMDWritesFieldsByNameOrByTheAliasOfItsBirth() throws {
        let role = try role()
        let context = RoleRecorder()
        // filler-3 is the node's second device: its aliases are 4 (speed), 5 (head/temp), 6 (head/on).
        let byAlias = SparkplugPayload(metrics: [
            SparkplugMetric(alias: 5, dataType: .double, value: .double(22.5)),
            SparkplugMetric(name: "head/on", dataType: .boolean, value: .bool(false)),
        ])
        #expect(receive(role, topic: "spBv1.0/plant/DCMD/line-1/filler-3", byAlias, context))
        #expect(context.take().first == .take(device: 1, fields: ["head.temp", "head.on"], values: [.number(22.5), .bool(false)]))

        let foreign = SparkplugPayload(metrics: [SparkplugMetric(alias: 2, dataType: .double, value: .double(1))])
        #expect(receive(role, topic: "spBv1.0/plant/DCMD/line-1/filler-3", foreign, context))
        let refused = context.take()
        #expect(!refused.contains { if case .take = $0 { true } else { false } }, "a metric of another device writes nothing")
        #expect(names(refused).contains { $0.contains("a DCMD rejected") })
        #expect(receive(role, topic: "spBv1.0/plant/DCMD/line-1/filler-2", byAlias, context))
        #expect(
            names(context.take()) == ["warn: sparkplug: a DCMD for device 'filler-2', which this node does not have"],
            "filler-2 is line-2's")
    }

    // MARK: A primary host (Sparkplug 3.0, 5.x: the births wait for its online STATE)

    /// What the node does about primary host scada's STATE `json`, named (`names`); nil when the
    /// role does not take it.
    private func state(
        _ role: SparkplugEdgeNodeRole, _ json: String, connected: Bool = true, host: String = "scada", _ context: RoleRecorder
    ) -> [String]? {
        context.isConnected = connected
        defer { context.isConnected = true }
        return role.receive("spBv1.0/STATE/\(host)", Array(json.utf8), context) ? names(context.take()) : nil
    }

    private static func online(_ online: Bool, _ timestamp: Int) -> String {
        #"{"online": \#(online), "timestamp": \#(timestamp)}"#
    }

    /// A connection's CONNACK, as the connection says it: its standing active again.
    private func connect(_ role: SparkplugEdgeNodeRole, _ context: RoleRecorder) -> [String] {
        context.standing = .active
        role.connected(context)
        return names(context.take())
    }

    @Test func withAPrimaryHostTheNodeSubscribesToItsStateFirstAndWaitsForItWithItsBirths() throws {
        let role = try role(primaryHost: "scada")
        let context = RoleRecorder()
        #expect(
            connect(role, context) == [
                "subscribe spBv1.0/STATE/scada spBv1.0/plant/NCMD/line-1 spBv1.0/plant/DCMD/line-1/+ qos 1", "awaitHost",
            ], "STATE first, at QoS 1, and no births")
        #expect(state(role, Self.online(true, 1000), context) == ["births"], "a retained online STATE comes at once when the host is up")
        #expect(state(role, Self.online(true, 1000), context) == [], "born already")
        #expect(state(role, "{}", host: "other", context) == nil, "another host's STATE is not this node's")
        // The NDEATH before a clean DISCONNECT stays, whatever the host.
        role.disconnecting(.goingOffline, context)
        #expect(names(context.take()) == ["death"])
    }

    @Test func theHostGoingOfflineHasTheNodeLeaveAndWaitAgainOnItsNextConnection() throws {
        let role = try role(primaryHost: "scada")
        let context = RoleRecorder()
        _ = connect(role, context)
        #expect(state(role, Self.online(true, 1000), context) == ["births"])
        #expect(state(role, Self.online(false, 2000), context) == ["awaitHost", "leave"])
        #expect(state(role, Self.online(true, 3000), context) == [], "leaving: no births on the connection going away")
        #expect(connect(role, context).last == "awaitHost")
        // The host's offline STATE, retained, comes at once: the node waits on.
        #expect(state(role, Self.online(false, 3000), context) == [])
        #expect(state(role, Self.online(true, 4000), context) == ["births"], "the host back: births on the new connection")
    }

    @Test func aStaleOfflineStateIsIgnoredAndTheWillsTimestampIsTheOnlineOnes() throws {
        let role = try role(primaryHost: "scada")
        let context = RoleRecorder()
        _ = connect(role, context)
        #expect(state(role, Self.online(true, 5000), context) == ["births"])
        // An offline STATE older than the online one (a will from an earlier session of the
        // host's, delivered late): the host is online still.
        #expect(state(role, Self.online(false, 4999), context) == [])
        #expect(role.host?.isBorn == true && role.host?.lastTimestamp == 5000)
        // The host's will repeats its online STATE's timestamp: it counts.
        #expect(state(role, Self.online(false, 5000), context) == ["awaitHost", "leave"])
        // A stale online STATE brings no births either.
        _ = connect(role, context)
        #expect(state(role, Self.online(true, 4000), context) == [] && role.host?.isBorn == false)
        // A host without timestamps is never stale.
        #expect(state(role, #"{"online": true}"#, context) == ["births"])
        #expect(role.host?.lastTimestamp == 5000)
    }

    @Test func aStateThatIsNoSparkplugStateIsSaidOnceAndIgnored() throws {
        let role = try role(primaryHost: "scada")
        let context = RoleRecorder()
        _ = connect(role, context)
        for payload in [
            "ONLINE", "{}", #"{"online": "true", "timestamp": 1}"#, #"{"online": 1}"#, #"{"online": true, "timestamp": "now"}"#,
        ] {
            let said = try #require(state(role, payload, context), "\(payload)")
            #expect(said.count == 1 && said[0].hasPrefix("warn: sparkplug: primary host 'scada' published a STATE"), "\(payload): \(said)")
            #expect(role.host?.isBorn == false)
        }
        #expect(role.receive("spBv1.0/STATE/scada", Array("OFFLINE".utf8), context))
        guard case .warn(_, let key)? = context.take().first else {
            Issue.record("no warning")
            return
        }
        #expect(key == "sparkplug: bad STATE", "once a run, whatever the payload")
        #expect(state(role, Self.online(true, 1), context) == ["births"])
    }

    @Test func noBirthsAskedForWhileTheNodeWaitsForItsHost() throws {
        let role = try role(primaryHost: "scada")
        let context = RoleRecorder()
        _ = connect(role, context)
        let rebirth = SparkplugPayload(metrics: [SparkplugMetric(name: "Node Control/Rebirth", dataType: .boolean, value: .bool(true))])
        #expect(receive(role, topic: "spBv1.0/plant/NCMD/line-1", rebirth, context))
        #expect(context.take() == [.log("sparkplug: an NCMD asked for a rebirth: the births wait for 'scada' to be online")])
        // A STATE that comes while the connection is going is not taken.
        #expect(state(role, Self.online(true, 10), connected: false, context) == [] && role.host?.isBorn == false)
        #expect(state(role, Self.online(true, 10), context) == ["births"])
        #expect(receive(role, topic: "spBv1.0/plant/NCMD/line-1", rebirth, context) && names(context.take()) == ["births"])
    }

    @Test func aRefusedStateSubscriptionIsSaidForWhatItCosts() throws {
        let role = try role(primaryHost: "scada")
        let context = RoleRecorder()
        var suback = Subscriptions.Suback()
        suback.refused = [("spBv1.0/STATE/scada", ReasonCode(rawValue: 0x87))]
        role.subscribed(suback, context)
        let said = names(context.take())
        #expect(said.count == 1 && said[0].contains("never hears primary host 'scada'"), "\(said)")
    }

    // MARK: Devices that the stages take out and bring back while their node stays

    @Test func aDeviceThatLeavesHasItsDDEATHAndOneThatComesBackItsDBIRTHWhileTheNodeIsBorn() {
        var roster = SparkplugDeviceRoster(devices: 3)
        #expect(roster.turned(in: [true, false, true]) == ([], []), "before the node's births, they say who is in")
        #expect(roster.births(in: [true, true, false]) == [0, 1], "the births are of the devices in")
        #expect(!roster.holdsData(of: 0) && !roster.holdsData(of: 1) && roster.holdsData(of: 2), "one out waits for its DBIRTH")
        #expect(roster.turned(in: [true, false, false]) == ([1], []))
        #expect(roster.turned(in: [true, false, false]) == ([], []), "once")
        #expect(roster.turned(in: [true, true, true]) == ([], [1, 2]))
        #expect((0..<3).allSatisfy { !roster.holdsData(of: $0) })
        roster.nodeDied()
        #expect(roster.turned(in: [true, false, true]) == ([], []), "the NDEATH said it for all")
        #expect((0..<3).allSatisfy { !roster.holdsData(of: $0) }, "while the node is not born, its connection says where the data goes")
        #expect(roster.births(in: [true, false, true]) == [0, 2] && roster.holdsData(of: 1))
    }
}

/// Found by review: a dry run of metrics that never change, bounded only by its messages, ends.
@Suite struct SparkplugDryRunTests {
    @Test func aDryRunOfMetricsThatNeverChangeEnds() throws {
        let plan = try plan(
            yaml: """
                devices:
                  - name: still
                    publish: 10/s
                    sparkplug: { groupId: g }
                    payload: { fields: { v: { constant: 1 } } }
                """)
        var lines: [String] = []
        let printed = DryRun(plan: plan, seed: 1, duration: nil, messages: 5).run { lines.append($0) }
        #expect(printed == 0, "the DBIRTH said it all, and nothing changes")
        #expect(lines.contains { $0.contains("/DBIRTH/") } && !lines.contains { $0.contains("/DDATA/") })
    }
}
