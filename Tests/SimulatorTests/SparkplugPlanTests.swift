import MQTT
import Mosquitto
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

    private func role(primaryHost: String? = nil, protocol version: ProtocolVersion = .v311) throws -> SparkplugRole {
        let yaml =
            primaryHost.map { Self.yaml.replacingOccurrences(of: "nodes: 2 }", with: "nodes: 2, primaryHost: \($0) }") } ?? Self.yaml
        let connection = try #require(try plan(yaml: yaml).connections.first)
        #expect(connection.sparkplug?.primaryHost == primaryHost)
        return try #require(SparkplugRole(plan: connection.sparkplug, devices: connection.devices, protocolVersion: version))
    }

    private func receive(_ role: SparkplugRole, topic: String, _ payload: SparkplugPayload) -> [RoleAction]? {
        receive(role, topic: topic, bytes: payload.encoded)
    }

    private func receive(_ role: SparkplugRole, topic: String, bytes: [UInt8], connected: Bool = true) -> [RoleAction]? {
        Array(topic.utf8).withUnsafeBytes { topicBytes in
            bytes.withUnsafeBytes { payloadBytes in
                role.received(
                    ReceivedMessage(topicBytes: topicBytes, payload: payloadBytes, qos: .atLeastOnce, retain: false), connected: connected,
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
        #expect(names(role.disconnecting(.goingOffline)) == ["death"], "its own NDEATH, before a DISCONNECT that discards the will")
    }

    /// Issue 38, item 3: under MQTT 5 the DISCONNECT carries 0x04 and the will is the NDEATH
    /// (Sparkplug 3.0, tck-id-payloads-ndeath-will-message-publisher-disconnect-mqtt50).
    @Test func underMQTT5TheNodesDeathIsItsWill() throws {
        #expect(names(try role(protocol: .v5).disconnecting(.goingOffline)) == ["death by will"])
        #expect(names(try role(primaryHost: "scada", protocol: .v5).disconnecting(.leaving)) == ["death by will"])
    }

    /// Issue 38, item 4: every NCMD is a command: a rebirth asked for, or one rejected with why.
    @Test func aRebirthIsAskedByATrueRebirthMetricOnly() throws {
        let role = try role()
        let rebirth = SparkplugPayload(metrics: [SparkplugMetric(name: "Node Control/Rebirth", dataType: .boolean, value: .bool(true))])
        #expect(receive(role, topic: "spBv1.0/plant/NCMD/line-1", rebirth).map(names) == ["rebirth now"])
        let no = SparkplugPayload(metrics: [SparkplugMetric(name: "Node Control/Rebirth", dataType: .boolean, value: .bool(false))])
        #expect(
            receive(role, topic: "spBv1.0/plant/NCMD/line-1", no).map(names) == [
                "rejected: an NCMD without 'Node Control/Rebirth' true asks nothing of the node, whose one node command that is"
            ])
        #expect(receive(role, topic: "spBv1.0/plant/NCMD/line-2", rebirth) == nil, "another node's")
        #expect(
            receive(role, topic: "spBv1.0/plant/NCMD/line-1", bytes: [0xFF]).map(names)?.first?.hasPrefix(
                "rejected: a command on 'spBv1.0/plant/NCMD/line-1' is no Sparkplug B payload") == true)
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
            receive(role, topic: "spBv1.0/plant/DCMD/line-1/filler-2", byAlias).map(names) == [
                "rejected: a DCMD for device 'filler-2', which this node does not have"
            ], "filler-2 is line-2's")
    }

    // MARK: A primary host (Sparkplug 3.0, 5.x: the births wait for its online STATE)

    /// What the node does about primary host scada's STATE `json`: its actions named, as
    /// `births`, `leave`, `warn`, or `[]` for none; nil when the role does not take it.
    private func state(_ role: SparkplugRole, _ json: String, connected: Bool = true, host: String = "scada") -> [String]? {
        receive(role, topic: "spBv1.0/STATE/\(host)", bytes: Array(json.utf8), connected: connected).map(names)
    }

    private func names(_ actions: [RoleAction]) -> [String] {
        actions.map { action in
            switch action {
            case .sparkplug(.births): "births"
            case .sparkplug(.leave): "leave"
            case .sparkplug(.awaitHost): "awaitHost"
            case .sparkplug(.death(let byWill)): byWill ? "death by will" : "death"
            case .sparkplug(.rebirth(let now, _)): now ? "rebirth now" : "rebirth after the host"
            case .sparkplug(.rejected(let rejection)): "rejected: \(rejection.reason)"
            case .subscribe(let filters, let qos): "subscribe \(filters.joined(separator: " ")) qos \(qos.rawValue)"
            case .warnOnce(let message, _): "warn: \(message)"
            default: "\(action)"
            }
        }
    }

    private static func online(_ online: Bool, _ timestamp: Int) -> String {
        #"{"online": \#(online), "timestamp": \#(timestamp)}"#
    }

    @Test func withAPrimaryHostTheNodeSubscribesToItsStateFirstAndWaitsForItWithItsBirths() throws {
        let role = try role(primaryHost: "scada")
        #expect(
            names(role.connected(now: 1)) == [
                "subscribe spBv1.0/STATE/scada spBv1.0/plant/NCMD/line-1 spBv1.0/plant/DCMD/line-1/+ qos 1", "awaitHost",
            ], "STATE first, at QoS 1, and no births")
        #expect(state(role, Self.online(true, 1000)) == ["births"], "a retained online STATE comes at once when the host is up")
        #expect(state(role, Self.online(true, 1000)) == [], "born already")
        #expect(state(role, "{}", host: "other") == nil, "another host's STATE is not this node's")
        // The NDEATH before a clean DISCONNECT stays, whatever the host.
        #expect(names(role.disconnecting(.goingOffline)) == ["death"])
    }

    @Test func theHostGoingOfflineHasTheNodeLeaveAndWaitAgainOnItsNextConnection() throws {
        let role = try role(primaryHost: "scada")
        _ = role.connected(now: 1)
        #expect(state(role, Self.online(true, 1000)) == ["births"])
        #expect(state(role, Self.online(false, 2000)) == ["leave"])
        #expect(state(role, Self.online(true, 3000)) == [], "leaving: no births on the connection going away")
        #expect(names(role.connected(now: 2)).last == "awaitHost")
        // The host's offline STATE, retained, comes at once: the node waits on.
        #expect(state(role, Self.online(false, 3000)) == [])
        #expect(state(role, Self.online(true, 4000)) == ["births"], "the host back: births on the new connection")
    }

    @Test func aStaleOfflineStateIsIgnoredAndTheWillsTimestampIsTheOnlineOnes() throws {
        let role = try role(primaryHost: "scada")
        _ = role.connected(now: 1)
        #expect(state(role, Self.online(true, 5000)) == ["births"])
        // An offline STATE older than the online one (a will from an earlier session of the
        // host's, delivered late): the host is online still.
        #expect(state(role, Self.online(false, 4999)) == [])
        #expect(role.host?.isBorn == true && role.host?.lastTimestamp == 5000)
        // The host's will repeats its online STATE's timestamp: it counts.
        #expect(state(role, Self.online(false, 5000)) == ["leave"])
        // A stale online STATE brings no births either.
        _ = role.connected(now: 2)
        #expect(state(role, Self.online(true, 4000)) == [] && role.host?.isBorn == false)
        // A host without timestamps is never stale.
        #expect(state(role, #"{"online": true}"#) == ["births"])
        #expect(role.host?.lastTimestamp == 5000)
    }

    @Test func aStateThatIsNoSparkplugStateIsSaidOnceAndIgnored() throws {
        let role = try role(primaryHost: "scada")
        _ = role.connected(now: 1)
        for payload in [
            "ONLINE", "{}", #"{"online": "true", "timestamp": 1}"#, #"{"online": 1}"#, #"{"online": true, "timestamp": "now"}"#,
        ] {
            let said = try #require(state(role, payload), "\(payload)")
            #expect(said.count == 1 && said[0].hasPrefix("warn: sparkplug: primary host 'scada' published a STATE"), "\(payload): \(said)")
            #expect(role.host?.isBorn == false)
        }
        guard case .warnOnce(_, let key)? = receive(role, topic: "spBv1.0/STATE/scada", bytes: Array("OFFLINE".utf8))?.first else {
            Issue.record("no warning")
            return
        }
        #expect(key == "sparkplug: bad STATE", "once a run, whatever the payload")
        #expect(state(role, Self.online(true, 1)) == ["births"])
    }

    @Test func noBirthsAskedForWhileTheNodeWaitsForItsHost() throws {
        let role = try role(primaryHost: "scada")
        _ = role.connected(now: 1)
        let rebirth = SparkplugPayload(metrics: [SparkplugMetric(name: "Node Control/Rebirth", dataType: .boolean, value: .bool(true))])
        #expect(receive(role, topic: "spBv1.0/plant/NCMD/line-1", rebirth).map(names) == ["rebirth after the host"])
        // A STATE that comes while the connection is going is not taken.
        #expect(state(role, Self.online(true, 10), connected: false) == [] && role.host?.isBorn == false)
        #expect(state(role, Self.online(true, 10)) == ["births"])
        #expect(receive(role, topic: "spBv1.0/plant/NCMD/line-1", rebirth).map(names) == ["rebirth now"])
    }

    @Test func aRefusedStateSubscriptionIsSaidForWhatItCosts() throws {
        let role = try role(primaryHost: "scada")
        var suback = Subscriptions.Suback()
        suback.refused = [("spBv1.0/STATE/scada", ReasonCode(rawValue: 0x87))]
        let said = names(role.subscribed(suback, now: 1))
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
        #expect(lines.count == 1 && lines.first?.contains("DBIRTH") == true)
    }
}
