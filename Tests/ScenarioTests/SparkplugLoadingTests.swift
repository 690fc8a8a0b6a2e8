import Testing
@testable import Scenario
@testable import Signals

/// Issue 28: `sparkplug:` on a device group, and what a Sparkplug group cannot have with it,
/// each named at its file, line and column.
@Suite struct SparkplugLoadingTests {
    static func scenario(sparkplug: String = "groupId: plant", group: String = "", top: String = "") -> String {
        """
        \(top)
        devices:
          - name: filler
            count: 4
            publish: 1/s
            sparkplug: { \(sparkplug) }
        \(group)
            payload: { fields: { speed: { accelerometer: x } } }
        """
    }

    @Test func theBlockLoadsWithItsDefaults() throws {
        let group = try #require(try load(Self.scenario()).groups.first)
        #expect(group.sparkplug == SparkplugNodes(groupID: "plant"))
        #expect(group.sparkplug?.edgeNodeID(1, group: "filler") == "filler-1")
        #expect(group.sparkplug?.reporting == .byException(deadband: 0))
        let full = try #require(
            try load(
                Self.scenario(
                    sparkplug:
                        "groupId: plant, edgeNodeId: \"line-{index}\", nodes: 2, reporting: exception, deadband: 0.5, primaryHost: scada"
                )
            ).groups.first?.sparkplug)
        #expect(
            full
                == SparkplugNodes(
                    groupID: "plant", edgeNodeID: Template("line-{index}"), nodes: 2, reporting: .byException(deadband: 0.5),
                    primaryHost: "scada"))
        #expect(try load(Self.scenario(sparkplug: "groupId: plant, reporting: all")).groups.first?.sparkplug?.reporting == .everyMetric)
    }

    @Test func theIDsAreTopicLevels() {
        #expect(
            problems(Self.scenario(sparkplug: "groupId: a/b")) == [
                "test.yaml:6:27: expected a Sparkplug ID, a topic level without '/', '+' or '#', for 'groupId', found 'a/b'"
            ])
        #expect(problems(Self.scenario(sparkplug: "groupId: g, edgeNodeId: \"n+{index}\"")).first?.contains("for 'edgeNodeId'") == true)
        #expect(problems(Self.scenario(sparkplug: "groupId: g, primaryHost: \"#\"")).first?.contains("for 'primaryHost'") == true)
        #expect(
            problems(Self.scenario(group: "    id: \"f/{index}\"")) == [
                "test.yaml:7:9: device group 'filler' is a Sparkplug group, whose device ids are topic levels, and 'f/1' has a '/', '+' or '#' in it"
            ])
    }

    @Test func theBlocksOwnMistakesAreNamed() {
        #expect(problems(Self.scenario(sparkplug: "edgeNodeId: n")).first?.contains("missing 'groupId'") == true)
        #expect(problems(Self.scenario(sparkplug: "groupId: g, nodes: 5")).first?.contains("5 Sparkplug edge nodes for 4 devices") == true)
        #expect(
            problems(Self.scenario(sparkplug: "groupId: g, edgeNodeId: line, nodes: 2")).first?.contains("put {index} in it") == true)
        #expect(problems(Self.scenario(sparkplug: "groupId: g, reporting: all, deadband: 1")).first?.contains("'deadband' is for") == true)
        #expect(problems(Self.scenario(sparkplug: "groupId: g, edgeNodeId: \"{id}\"")).first?.contains("'{id}' cannot be used") == true)
        #expect(problems(Self.scenario(sparkplug: "groupId: g, reportng: all")).first?.contains("did you mean 'reporting'") == true)
    }

    @Test(arguments: [
        ("    topic: t", "topic", "Sparkplug names the topics"),
        ("    connection: { shared: 2 }", "connection", "sparkplug.nodes"),
        ("    qos: 1", "qos", "QoS 0"),
        ("    retain: true", "retain", "without retain"),
        ("    availability: { topic: a }", "availability", "DBIRTH and DDEATH"),
        ("    onChange: { fields: [speed] }", "onChange", "reports by exception"),
        ("    verify: { sequence: seq }", "verify", "--verify reads a Sparkplug payload's own seq and timestamp: remove 'verify'"),
    ])
    func whatSparkplugDoesItsOwnWayIsRefused(line: String, key: String, why: String) {
        let found = problems(Self.scenario(group: line))
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("test.yaml:7:") == true, "at the key: \(found)")
        #expect(found.first?.contains("which takes no '\(key)': ") == true && found.first?.contains(why) == true, "\(found)")
    }

    @Test func aTemplatePayloadIsRefused() {
        let text = """
            devices:
              - name: filler
                publish: 1/s
                sparkplug: { groupId: g }
                payload: { style: template, template: "{{v}}", fields: { v: { accelerometer: x } } }
            """
        #expect(problems(text).first?.contains("'style: template' does not apply") == true)
    }

    @Test func theFleetRulesOutAKeptSessionAzureAndOneNodeTwice() {
        #expect(problems(Self.scenario(top: "broker: { cleanSession: false }")).first?.contains("clean session") == true)
        let twice = """
            devices:
              - name: a
                publish: 1/s
                sparkplug: { groupId: g, edgeNodeId: "n-{index}" }
                payload: { fields: { v: { accelerometer: x } } }
              - name: b
                publish: 1/s
                sparkplug: { groupId: g, edgeNodeId: "n-{index}" }
                payload: { fields: { v: { accelerometer: x } } }
            """
        #expect(
            problems(twice) == [
                "test.yaml:6:5: device groups 'a' and 'b' are both Sparkplug edge node g/n-1: give them other 'edgeNodeId's"
            ])
    }
}

/// Found by review: what would misbehave at run time is refused at load.
@Suite struct SparkplugRefusalTests {
    @Test func publishingAtMaxByExceptionIsRefused() throws {
        let text = { (reporting: String) in
            """
            devices:
              - name: filler
                publish: max
                sparkplug: { groupId: g, reporting: \(reporting) }
                payload: { fields: { v: { accelerometer: x } } }
            """
        }
        #expect(
            problems(text("exception")) == [
                "test.yaml:3:14: device group 'filler' publishes at max and reports by exception: a tick with nothing changed sends nothing, so it would spin; use 'reporting: all' or a rate"
            ])
        _ = try load(text("all"))
    }

    @Test func aFieldNameWithADotOrASlashIsRefused() {
        let text = """
            devices:
              - name: filler
                publish: 1/s
                sparkplug: { groupId: g }
                payload: { fields: { head: { fields: { "a.b": { accelerometer: x } } } } }
            """
        #expect(problems(text).first?.contains("field 'a.b' has a '.' or '/'") == true)
    }

    @Test func anOfflineBufferIsRefused() {
        #expect(
            problems(SparkplugLoadingTests.scenario(top: "offline: { policy: buffer }")).first?.contains("'offline: buffer' with Sparkplug")
                == true)
    }
}
