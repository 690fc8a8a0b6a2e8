import MQTT
import Testing
@testable import Scenario

/// Issue 15, item 3: `subscribers:` beside `devices:`, read with the devices' spellings, and
/// every mistake named at its place with a hint.
@Suite struct SubscriberLoadingTests {
    static let devices = """
        devices:
          - name: d
            topic: "fleet/{index}/telemetry"
            publish: 1/s
            payload: { fields: { X: { accelerometer: x } } }

        """

    @Test func aGroupIsReadWithEveryKey() throws {
        let scenario = try load(
            Self.devices + """
                subscribers:
                  - name: dashboards
                    count: 100
                    clientId: "dash-{index}"
                    topics: ["fleet/+/telemetry", "alerts/#"]
                    qos: 1
                    cleanSession: false
                    rampUp: 500/s
                  - name: workers
                    topics: "$share/workers/fleet/#"
                """)
        #expect(scenario.subscribers.count == 2)
        let dashboards = try #require(scenario.subscribers.first)
        #expect(dashboards.name == "dashboards" && dashboards.count == 100 && dashboards.qos == .atLeastOnce)
        #expect(dashboards.clientID.render(name: "dashboards", index: 7, id: nil) == "dash-7")
        #expect(dashboards.topics.map(\.text) == ["fleet/+/telemetry", "alerts/#"])
        #expect(dashboards.cleanSession == false && dashboards.rampUp?.perSecond == 500 && !dashboards.isShared)
        #expect(dashboards.location == SourceLocation(file: "test.yaml", line: 7, column: 5))
        let workers = try #require(scenario.subscribers.last)
        #expect(workers.count == 1 && workers.qos == .atMostOnce && workers.cleanSession == nil && workers.isShared)
        #expect(workers.topics.first?.shareName == "workers" && workers.topics.first?.filter == "fleet/#")
        #expect(workers.clientID.render(name: "workers", index: 1, id: nil) == "workers-1")
    }

    @Test func aScenarioWithoutSubscribersHasNone() throws {
        #expect(try load(Self.devices).subscribers.isEmpty)
    }

    @Test(
        arguments: [
            ("  - count: 2\n    topics: [a]", "7:5: missing 'name' in a subscriber group"),
            ("  - name: s", "7:5: missing 'topics' in subscriber group 's'"),
            ("  - name: s\n    count: 0\n    topics: [a]", "8:12: expected an integer from 1 to 1000000 for 'count', found 0"),
            (
                "  - name: s\n    topics: [\"a/#/b\"]",
                "8:14: 'a/#/b' is not a topic filter: '#' matches the rest of a topic, so it must be the last level"
            ),
            ("  - name: s\n    topics: [\"a/b+\"]", "8:14: 'a/b+' is not a topic filter: '+' must be a whole level"),
            ("  - name: s\n    topics: [\"\"]", "8:14: '' is not a topic filter: a topic filter cannot be empty"),
            ("  - name: s\n    topics: [\"$share/\"]", "8:14: '$share/' is not a topic filter: a shared subscription names its share"),
            ("  - name: s\n    topics: [\"$share//a\"]", "8:14: '$share//a' is not a topic filter: a shared subscription names its share"),
            (
                "  - name: s\n    topics: [\"$share/g\"]",
                "8:14: '$share/g' is not a topic filter: a shared subscription is $share/NAME/FILTER"
            ),
            ("  - name: s\n    topics: [\"$shared/g/a\"]", "did you mean '$share/g/a'?"),
            ("  - name: s\n    topics: []", "8:13: expected at least one topic filter in 'topics' of subscriber group 's'"),
            ("  - name: s\n    topics: [\"$share/g/a\", b]", "8:13: subscriber group 's' mixes shared subscriptions ($share/…) with 'b'"),
            (
                "  - name: s\n    topics: [\"a/#\", \"a/b\"]",
                "8:21: 'a/b' and 'a/#' of subscriber group 's' both match topics such as 'a/b': each member receives it twice"
            ),
            (
                "  - name: s\n    topics: [\"fleet/#\", \"fleet\"]",
                "8:25: 'fleet' and 'fleet/#' of subscriber group 's' both match topics such as 'fleet'"
            ),
            (
                "  - name: s\n    topics: [\"+/b\", \"a/+\"]",
                "8:21: 'a/+' and '+/b' of subscriber group 's' both match topics such as 'a/b'"
            ),
            (
                "  - name: s\n    topics: [\"$share/g/a/+\", \"$share/h/+/b\"]",
                "8:30: '$share/h/+/b' and '$share/g/a/+' of subscriber group 's' both match topics such as 'a/b': both shares deal it"
            ),
            ("  - name: s\n    topics: [a, b, a]", "8:20: 'a' is given twice in 'topics' of subscriber group 's'; give it once"),
            ("  - name: s\n    topics: [a]\n    qos: 3", "9:10: expected 0, 1 or 2 for 'qos', found 3"),
            (
                "  - name: s\n    topics: [a]\n    cleanSesion: false",
                "9:5: unknown key 'cleanSesion' in a subscriber group; did you mean 'cleanSession'?"
            ),
            ("  - name: s\n    topics: [a]\n    rampUp: fast", "9:13: expected a rate"),
            ("  - name: s\n    topics: [a]\n    clientId: \"{id}\"", "'{id}' cannot be used in 'clientId'"),
            ("  - name: s\n    topics: [a]\n  - name: s\n    topics: [b]", "9:5: subscriber group name 's' is already used at line 7"),
            ("  name: s", "7:3: expected a list of subscriber groups"),
        ])
    func aMistakeIsNamedAtItsPlace(entry: String, expected: String) {
        let found = problems(Self.devices + "subscribers:\n" + entry)
        #expect(found.count == 1 && found.allSatisfy { $0.hasPrefix("test.yaml:") && $0.contains(expected) }, "\(found)")
    }

    @Test func anIncludedFileCannotSetSubscribers() throws {
        let main = Self.devices + "include: more.yaml\n"
        var problems: [String] = []
        do {
            _ = try ScenarioLoader.load(bytes: Array(main.utf8), file: "main.yaml", environment: [:], generators: .test) { _ in
                .success(
                    Array(
                        (Self.devices.replacingOccurrences(of: "name: d", with: "name: e") + "subscribers:\n  - { name: s, topics: [a] }\n")
                            .utf8))
            }
        } catch {
            problems = error.diagnostics.map(\.description)
        }
        #expect(problems.count == 1 && problems.first?.contains("'subscribers' cannot be set in an included file") == true, "\(problems)")
    }

    /// A broker sends a member one copy per filter that matches: filters of one group that
    /// meet nowhere are taken.
    @Test func filtersThatMeetNowhereAreTakenTogether() throws {
        for topics in [##"["a/+", "a/b/c"]"##, ##"["#", "$SYS/broker"]"##, ##"["a/b", "a/c/#"]"##, ##"["$share/g/x/#", "$share/g/y"]"##] {
            let scenario = try load(Self.devices + "subscribers:\n  - name: s\n    topics: \(topics)")
            #expect(scenario.subscribers.first?.topics.count == 2, "\(topics)")
        }
        let pairs: [(String, String, String?)] = [
            ("#", "+", "x"), ("a/#", "a", "a"), ("+/+", "a/#", "a/x"), ("a/+", "b/+", nil), ("$SYS/#", "+/broker", nil),
        ]
        for (first, second, topic) in pairs {
            #expect(try TopicFilter(first).commonTopic(with: TopicFilter(second)) == topic, "\(first) and \(second)")
            #expect(try TopicFilter(second).commonTopic(with: TopicFilter(first)) == topic, "\(second) and \(first)")
        }
    }

    @Test func filtersMatchAsABrokerMatchesThem() throws {
        let cases: [(String, String, Bool)] = [
            ("fleet/+/telemetry", "fleet/7/telemetry", true), ("fleet/+/telemetry", "fleet/7/status", false),
            ("fleet/#", "fleet", true), ("fleet/#", "fleet/a/b", true), ("#", "$SYS/broker", false),
            ("$share/g/fleet/+", "fleet/3", true), ("a/b", "a/b/c", false),
        ]
        for (filter, topic, matches) in cases {
            #expect(try TopicFilter(filter).matches(topic) == matches, "\(filter) on \(topic)")
        }
    }
}
