import MQTT
import Scenario
@testable import Report
@testable import Simulator
import Testing

/// A subscriber group's counting without a broker: a shared group's members count into one
/// table, so a message that reaches two of them is a duplicate; a group whose members each get
/// the whole stream counts each member's copy apart.
struct SubscriberTallyTests {
    static func plan(topics: String, count: Int = 2, shard: Shard? = nil) throws -> FleetPlan {
        let yaml = """
            devices:
              - name: d
                count: 2
                topic: "fleet/{index}"
                publish: 1/s
                payload: { style: flat, fields: { seq: { counter: 0 }, ts: { timestamp: ms } } }
            subscribers:
              - name: s
                count: \(count)
                topics: [\(topics)]
            """
        var settings = RunSettings()
        settings.shard = shard
        return try SimulatorTests.plan(yaml: yaml, file: "t.yaml", settings: settings)
    }

    /// Hands `tally` the message `seq` on `topic` as member `slot` received it.
    @discardableResult
    static func receive(_ tally: SubscriberTally, slot: Int, topic: String, seq: Int) -> Bool {
        let payload = Array("{\"seq\":\(seq),\"ts\":1}".utf8)
        let topicBytes = Array(topic.utf8)
        return topicBytes.withUnsafeBytes { topicBuffer in
            payload.withUnsafeBytes { payloadBuffer in
                tally.receive(
                    ReceivedMessage(topicBytes: topicBuffer, payload: payloadBuffer, qos: .atLeastOnce, retain: false), slot: slot)
            }
        }
    }

    static func sum(_ tally: SubscriberTally, _ figure: KeyPath<Verifier.Stream, Int>) -> Int {
        tally.streams.flatMap(\.streams).reduce(0) { $0 + $1[keyPath: figure] }
    }

    @Test func aSharedGroupCountsAMessageOnTwoMembersAsADuplicate() throws {
        let group = try #require(try Self.plan(topics: "\"$share/g/fleet/+\"").subscribers.first)
        #expect(group.isShared && group.topics.map(\.topic) == ["fleet/1", "fleet/2"])
        let tally = SubscriberTally(plan: group)
        let first = tally.slot(), second = tally.slot()
        #expect(first == second, "one table for every member")
        for seq in 0..<5 { #expect(!Self.receive(tally, slot: seq % 2 == 0 ? first : second, topic: "fleet/1", seq: seq)) }
        #expect(Self.receive(tally, slot: second, topic: "fleet/1", seq: 2), "seq 2 went to the first member already")
        #expect(Self.sum(tally, \.duplicated) == 1 && Self.sum(tally, \.gaps) == 0 && Self.sum(tally, \.outOfOrder) == 0)
        #expect(tally.latency.count == 6)
    }

    @Test func membersOfAWholeStreamGroupEachCountTheirOwn() throws {
        let group = try #require(try Self.plan(topics: "\"fleet/#\"").subscribers.first)
        let tally = SubscriberTally(plan: group)
        let first = tally.slot(), second = tally.slot()
        #expect(first != second)
        for seq in [0, 1, 3] {
            #expect(!Self.receive(tally, slot: first, topic: "fleet/2", seq: seq))
            #expect(!Self.receive(tally, slot: second, topic: "fleet/2", seq: seq), "the same message on another member is its own")
        }
        #expect(Self.receive(tally, slot: first, topic: "fleet/2", seq: 3))
        #expect(Self.sum(tally, \.duplicated) == 1, "the first member's copy")
        #expect(Self.sum(tally, \.gaps) == 2, "seq 2 missing on each member")
        #expect(!Self.receive(tally, slot: first, topic: "elsewhere", seq: 0), "a topic of no device is counted, not judged")
    }

    @Test func theFiltersCatchTheFleetsTopicsAndTheMembersAreTheirClientIDs() throws {
        let plan = try Self.plan(topics: "\"fleet/2\"", count: 3)
        let group = try #require(plan.subscribers.first)
        #expect(group.topics.map(\.topic) == ["fleet/2"] && !group.isShared)
        #expect(group.members.map(\.options.clientID) == ["s-1", "s-2", "s-3"])
        #expect(plan.subscriberConnectionCount == 3)
        // Dealt over shards by client id: together, the shards run every member once.
        let shards = try (0..<2).map { try Self.plan(topics: "\"fleet/2\"", count: 3, shard: Shard(index: $0, count: 2)) }
        let members = shards.flatMap { $0.subscribers.first?.members.map(\.index) ?? [] }
        #expect(members.sorted() == [1, 2, 3])
        #expect(shards.allSatisfy { $0.subscribers.first?.topics.count == 1 }, "every shard's subscribers watch the whole fleet's topics")
    }

    /// A shared stream split over shards would be judged in parts, each missing the others'
    /// messages as gaps: a shared group runs whole on one shard, the one its name hashes to,
    /// and every other shard still lists it, with no member.
    @Test func aSharedGroupRunsWholeOnTheShardItsNameHashesTo() throws {
        for count in [2, 3, 5] {
            let shards = try (0..<count).map {
                try Self.plan(topics: "\"$share/g/fleet/+\"", count: 8, shard: Shard(index: $0, count: count))
            }
            let members = shards.map { $0.subscribers.first?.members.map(\.index) ?? [] }
            #expect(shards.allSatisfy { $0.subscribers.map(\.name) == ["s"] }, "every shard plans the group")
            let owner = Shard.bucket(of: "s", count: count)
            #expect(members[owner] == Array(1...8), "\(count) shards: \(members)")
            #expect(members.indices.allSatisfy { $0 == owner || members[$0].isEmpty }, "\(count) shards: \(members)")
            #expect(shards[owner].subscriberConnectionCount == 8)
        }
    }

    /// Two groups on one `$share/NAME/FILTER` are one share at the broker, each member of either
    /// getting part of one stream: refused, in one file and across files, naming both places.
    @Test func twoGroupsOnOneSharedSubscriptionAreAConflict() throws {
        let devices = """
            devices:
              - name: d
                topic: "fleet/{index}"
                publish: 1/s
                payload: { fields: { n: { counter: 0 } } }

            """
        let groups = """
            subscribers:
              - name: a
                topics: ["$share/w/fleet/#"]
              - name: b
                topics: ["$share/w/other/+", "$share/w/fleet/#"]
              - name: c
                topics: ["$share/v/fleet/#"]
            """
        let one = FleetPlan(scenarios: [try scenario(yaml: devices + groups, file: "t.yaml")], settings: RunSettings())
        let message =
            "shared subscription '$share/w/fleet/#' of subscriber group 'b' is also made by subscriber group 'a' at t.yaml:7:5; "
            + "the broker makes them one share and deals each message to one member of either group, so each would count the "
            + "other's as gaps: give the groups different share names"
        #expect(one.conflicts.map(\.description) == ["t.yaml:9:5: " + message], "another share name, or another filter, is another share")
        let other = """
            name: other
            devices:
              - name: o
                topic: "other/{index}"
                publish: 1/s
                payload: { fields: { n: { counter: 0 } } }
            subscribers:
              - name: e
                clientId: "e-{index}"
                topics: "$share/v/fleet/#"
            """
        let two = FleetPlan(
            scenarios: [try scenario(yaml: devices + groups, file: "t.yaml"), try scenario(yaml: other, file: "u.yaml")],
            settings: RunSettings())
        #expect(
            two.conflicts.map(\.description) == [
                "t.yaml:9:5: " + message,
                "u.yaml:8:5: shared subscription '$share/v/fleet/#' of subscriber group 'e' is also made by subscriber group 'c' at "
                    + "t.yaml:11:5; the broker makes them one share and deals each message to one member of either group, so each "
                    + "would count the other's as gaps: give the groups different share names",
            ])
    }

    /// A reload leaves the subscriber groups as they were, and says so when the files changed
    /// them: told apart by what they are made of, not by where they are written, nor by what a
    /// subscriber has none of (a will, an ack timeout).
    @Test func aReloadTellsAChangedSubscriberGroupByWhatItIsMadeOf() throws {
        let yaml = """
            broker: { host: 127.0.0.1, port: 1883 }
            devices:
              - name: d
                topic: "fleet/{index}"
                publish: 1/s
                payload: { fields: { n: { counter: 0 } } }
            subscribers:
              - name: s
                count: 3
                topics: ["fleet/#"]
            """
        let sources = { (yaml: String) in
            try SimulatorTests.plan(yaml: yaml, file: "t.yaml")
                .subscribers.map(\.source)
        }
        let running = try sources(yaml)
        #expect(try sources("# moved down\n" + yaml) == running, "where it is written does not matter")
        #expect(try sources(yaml.replacingOccurrences(of: "port: 1883 }", with: "port: 1883, ackTimeout: 5s }")) == running)
        for changed in [
            yaml.replacingOccurrences(of: "count: 3", with: "count: 4"),
            yaml.replacingOccurrences(of: "fleet/#\"]", with: "fleet/+\"]"),
            yaml.replacingOccurrences(of: "port: 1883", with: "port: 1884"),
            yaml + "\n    qos: 1",
            yaml + "\n    clientId: \"dash-{index}\"",
        ] {
            #expect(try sources(changed) != running, "\(changed)")
        }
    }

    @Test func aSubscribersClientIDThatIsADevicesIsAConflict() throws {
        let yaml = """
            devices:
              - name: d
                topic: t
                publish: 1/s
                payload: { fields: { n: { counter: 0 } } }
            subscribers:
              - name: s
                clientId: "d-{index}"
                topics: [t]
            """
        let plan = try SimulatorTests.plan(yaml: yaml, file: "t.yaml")
        #expect(
            plan.conflicts.map(\.description) == [
                "t.yaml:7:5: client id 'd-1' of subscriber group 's' is also used by device group 'd' at t.yaml:2:5; two clients with one id knock each other off the broker: give the groups different names, or different 'clientId' templates"
            ])
    }
}
