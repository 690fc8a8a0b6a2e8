import MQTT
import Testing

/// Issue 29, item 1: a connection's Topic Aliases, as the client carries them out.
@Suite struct TopicAliasesTests {
    @Test func eachTopicGoesOnceWithItsAliasThenTheAliasAloneWithinTheMaximum() {
        var aliases = TopicAliases()
        #expect(aliases.use(for: "a") == .topic, "none before a CONNACK allows any")
        aliases.restart(maximum: 2)
        #expect(aliases.use(for: "a") == .topicAndAlias(1))
        #expect(aliases.use(for: "b") == .topicAndAlias(2))
        #expect(aliases.use(for: "c") == .topic, "beyond the maximum: in full")
        #expect(aliases.use(for: "a") == .alias(1))
        #expect(aliases.use(for: "c") == .topic)
        #expect(aliases.use(for: "b") == .alias(2))
    }

    @Test func aNewConnectionStartsAnew() {
        var aliases = TopicAliases()
        aliases.restart(maximum: 10)
        _ = aliases.use(for: "a")
        #expect(aliases.use(for: "a") == .alias(1))
        aliases.restart(maximum: 10)
        #expect(aliases.use(for: "b") == .topicAndAlias(1))
        #expect(aliases.use(for: "a") == .topicAndAlias(2))
        aliases.restart(maximum: 0)
        #expect(aliases.use(for: "a") == .topic)
    }

    @Test func thePropertiesLengthIsWhatTheWireCarries() {
        var properties = PublishProperties()
        properties.userProperties = [UserProperty(name: "site", value: "plant-1")]
        properties.messageExpiry = 300
        properties.contentType = "text/plain"
        properties.payloadFormat = .utf8
        properties.responseTopic = "r/1"
        properties.correlationData = [1, 2]
        // 1+2+4+2+7, 1+4, 1+2+10, 1+1, 1+2+3, 1+2+2
        #expect(properties.encodedLength == 16 + 5 + 13 + 2 + 6 + 5)
    }
}
