import MQTT
import Testing

@testable import Scenario

/// Issue 29, item 1: a device group's MQTT 5 `properties:`, read with each mistake named at its
/// file, line and column. Whether the protocol is 5 is the plan's to check
/// (`PropertiesPlanTests`), since the command line may choose it.
@Suite struct PropertiesLoadingTests {
    static func scenario(_ properties: String, group: String = "") -> String {
        """
        broker: { protocol: mqtt5 }
        devices:
          - name: meter
            count: 2
            topic: "plant/{id}"
            publish: 1/s
        \(group)
            payload: { fields: { power: { accelerometer: x } } }
            properties: { \(properties) }
        """
    }

    @Test func everyPropertyLoadsAndIsFilledPerDevice() throws {
        let text = Self.scenario(
            "userProperties: { site: \"plant-{index}\", device: \"{id}\" }, messageExpiry: 5m, contentType: application/json, "
                + "payloadFormatIndicator: utf8, responseTopic: \"replies/{id}\", correlationData: \"c-{id}\", topicAlias: auto")
        let properties = try #require(try load(text).groups.first?.properties)
        #expect(properties.location == SourceLocation(file: "test.yaml", line: 9, column: 17))
        let filled = properties.render(name: "meter", index: 2, id: "meter-2")
        #expect(filled.userProperties == [UserProperty(name: "site", value: "plant-2"), UserProperty(name: "device", value: "meter-2")])
        #expect(filled.messageExpiry == 300)
        #expect(filled.contentType == "application/json")
        #expect(filled.payloadFormat == .utf8)
        #expect(filled.responseTopic == "replies/meter-2")
        #expect(filled.correlationData == Array("c-meter-2".utf8))
        #expect(filled.topicAlias)
        #expect(try load(Self.scenario("payloadFormatIndicator: 0")).groups.first?.properties?.payloadFormat == .bytes)
        #expect(try load(Self.scenario("topicAlias: none")).groups.first?.properties?.topicAlias == false)
    }

    @Test func badValuesAreNamedWhereTheyStand() {
        #expect(
            problems(Self.scenario("messageExpiry: 0s")) == [
                "test.yaml:9:34: expected whole seconds from 1s to 4294967295s (about 136 years) for 'messageExpiry', found '0s'"
            ])
        #expect(problems(Self.scenario("messageExpiry: 1.5s")).first?.contains("expected whole seconds") == true)
        #expect(problems(Self.scenario("messageExpiry: 137y")).first?.contains("for 'messageExpiry'") == true)
        #expect(
            problems(Self.scenario("payloadFormatIndicator: utf9")) == [
                "test.yaml:9:43: expected utf8 (1: the payload is UTF-8 text) or bytes (0: unspecified bytes) for "
                    + "'payloadFormatIndicator', found 'utf9'; did you mean 'utf8'?"
            ])
        #expect(
            problems(Self.scenario("responseTopic: replies/+")) == [
                "test.yaml:9:34: expected a topic to publish to, not empty and without the wildcards '+' and '#', for 'responseTopic', "
                    + "found 'replies/+'"
            ])
        #expect(problems(Self.scenario("responseTopic: \"r/#\"")).first?.contains("without the wildcards") == true)
        #expect(
            problems(Self.scenario("userProperties: { site: \"{indx}\" }")) == [
                "test.yaml:9:43: unknown placeholder '{indx}' in 'site'; did you mean '{index}'?"
            ])
        #expect(problems(Self.scenario("topicAlias: yes")).first?.contains("expected auto or none for 'topicAlias'") == true)
        #expect(
            problems(Self.scenario("corelationData: x")) == [
                "test.yaml:9:19: unknown key 'corelationData' in 'properties'; did you mean 'correlationData'?"
            ])
        #expect(
            problems(Self.scenario("contentType: \"\(String(repeating: "a", count: 65_536))\"")).first?.contains("at most 65535 bytes")
                == true)
    }

    /// libmosquitto resends a QoS 1/2 PUBLISH after a reconnect as it was first sent: an alias
    /// alone would name an alias the new connection does not have.
    @Test func topicAliasesAreForQoS0Only() {
        #expect(
            problems(Self.scenario("topicAlias: auto", group: "    qos: 1")) == [
                "test.yaml:9:17: device group 'meter' has 'topicAlias: auto' and QoS 1: topic aliases go with QoS 0 only, since a QoS "
                    + "1/2 message resent after a reconnect must not name the alias of the connection before; use qos: 0, or remove "
                    + "'topicAlias'"
            ])
        #expect(problems(Self.scenario("contentType: text/plain", group: "    qos: 2")) == ["loaded without errors"])
    }

    @Test func aSparkplugGroupTakesNone() {
        let text = """
            broker: { protocol: mqtt5 }
            devices:
              - name: filler
                publish: 1/s
                sparkplug: { groupId: plant }
                payload: { fields: { speed: { accelerometer: x } } }
                properties: { contentType: text/plain }
            """
        #expect(
            problems(text).first?.hasPrefix("test.yaml:7:17: device group 'filler' is a Sparkplug group, which takes no 'properties'")
                == true)
    }
}
