import Testing
@testable import Scenario

/// Issue 27, item 3: `broker.azureIoTHub`, and what the hub would refuse found at load, each at
/// its file, line and column.
@Suite struct AzureIoTHubLoadingTests {
    static let key = "ZGV2c2lt"

    static func scenario(broker: String = "", block: String = "deviceKey: ZGV2c2lt", group: String = "") -> String {
        """
        broker:
          azureIoTHub: { hub: contoso.azure-devices.net, \(block) }
        \(broker)
        devices:
          - name: d
            topic: "devices/{id}/messages/events/"
            publish: 1/s
        \(group)
            payload: { fields: { v: { accelerometer: x } } }
        """
    }

    @Test func theBlockLoadsWithItsDefaults() throws {
        let azure = try #require(try load(Self.scenario()).broker.azureIoTHub)
        #expect(azure == AzureIoTHub(hub: "contoso.azure-devices.net", key: .device(Self.key)))
        #expect(azure.tokenLifetime == .seconds(3600) && azure.apiVersion == "2021-04-12")
        #expect(azure.username(id: "d-1") == "contoso.azure-devices.net/d-1/?api-version=2021-04-12")
        let group = try #require(
            try load(Self.scenario(block: "groupKey: \"ZGV2c2ltIQ\", tokenLifetime: 10s, apiVersion: v2")).broker.azureIoTHub)
        #expect(group.key == .group("ZGV2c2ltIQ") && group.tokenLifetime == .seconds(10) && group.apiVersion == "v2")
    }

    /// Issue 38, item 10: telemetry goes to the hub's device-to-cloud topic by default, as the
    /// issue that built the block said; a group without `topic` was refused as missing it.
    @Test func aGroupWithoutATopicSendsToTheHubsTelemetryTopic() throws {
        let yaml = Self.scenario().replacingOccurrences(of: "    topic: \"devices/{id}/messages/events/\"\n", with: "")
        #expect(!yaml.contains("topic"))
        let group = try #require(try load(yaml).groups.first)
        #expect(group.topic.render(name: "d", index: 1, id: "d-1") == "devices/d-1/messages/events/")
        let own = try #require(try load(Self.scenario()).groups.first)
        #expect(own.topic == group.topic, "as a group that writes it")
        #expect(
            problems(yaml.replacingOccurrences(of: "  azureIoTHub: { hub: contoso.azure-devices.net, deviceKey: ZGV2c2lt }\n", with: ""))
                == ["test.yaml:4:5: missing 'topic' in device group 'd'"], "without the block, a topic is needed")
    }

    @Test func aKeyThatIsNotBase64IsNamedAtItsPlaceWithoutTheKey() {
        let found = problems(Self.scenario(block: "deviceKey: \"secret key!\""))
        #expect(
            found == ["test.yaml:2:61: expected a base64 key for 'deviceKey', as the Azure portal shows it: ' ' is not a base64 character"])
        #expect(problems(Self.scenario(block: "groupKey: ZGV2c2ltI")).first?.contains("its length is not that of base64") == true)
    }

    /// The hub's WebSocket endpoint is another port and path, untried: refused, not sent to
    /// 8883 and /mqtt (found by review).
    @Test func webSocketsAreRefused() {
        #expect(
            problems(Self.scenario(broker: "  transport: websockets")) == [
                "test.yaml:3:14: MQTT over WebSockets with 'azureIoTHub' is not supported: connect over TCP with TLS on 8883"
            ])
    }

    @Test func oneKeyExactly() {
        #expect(problems(Self.scenario(block: "deviceKey: ZGV2c2lt, groupKey: ZGV2c2lt")).first?.contains("not both") == true)
        #expect(problems(Self.scenario(block: "tokenLifetime: 1h")).first?.contains("missing 'deviceKey' or 'groupKey'") == true)
    }

    @Test func aLifetimeUnderTenSecondsIsRefused() {
        #expect(
            problems(Self.scenario(block: "deviceKey: ZGV2c2lt, tokenLifetime: 5s")).first?.hasPrefix(
                "test.yaml:2:86: expected at least 10s") == true)
    }

    @Test(arguments: [
        ("  username: u", "test.yaml:3:13: 'username' with 'azureIoTHub'"),
        ("  password: p", "test.yaml:3:13: 'password' with 'azureIoTHub'"),
        ("  protocol: mqtt5", "test.yaml:3:13: expected 'mqtt311' for 'protocol'"),
        ("  keepalive: 1200s", "test.yaml:3:14: expected at most 1177s for 'keepalive'"),
    ])
    func whatTheBlockSetsOrTheHubRefusesInTheBroker(_ line: String, _ expected: String) {
        let found = problems(Self.scenario(broker: line))
        #expect(found.count == 1 && found[0].hasPrefix(expected), "\(found)")
    }

    @Test(arguments: [
        ("    qos: 2", "publishes at qos 2"),
        ("    retain: true", "publishes with retain"),
        ("    clientId: \"dev-{index}\"", "sets 'clientId'"),
        ("    connection: { shared: 2 }", "shares connections"),
    ])
    func whatTheHubRefusesInAGroupIsNamedAtTheGroup(_ line: String, _ expected: String) {
        let found = problems(Self.scenario(group: line))
        #expect(found.count == 1 && found[0].hasPrefix("test.yaml:5:5: device group 'd' \(expected)"), "\(found)")
    }

    @Test func subscribersAndTheVerifierAreRefused() {
        let found = problems(Self.scenario() + "\nsubscribers:\n  - name: s\n    topics: [t]\n")
        #expect(found.count == 1 && found[0].contains("'subscribers' with 'azureIoTHub'"), "\(found)")
    }
}
