import Testing

@testable import Simulator

/// Issue 38, item 20: what is said of a message on a topic none of a connection's
/// subscriptions match.
@Suite struct UnmatchedTopicTests {
    @Test func aTopicASubscriptionMatchesIsNotSaid() {
        #expect(UnmatchedTopic.warning(topic: "spBv1.0/plant/NDATA/line-1", filters: ["spBv1.0/plant/+/line-1/#"]) == nil)
    }

    /// RabbitMQ 3.10 swaps '.' and '/' between MQTT topics and AMQP routing keys.
    @Test func aRewrittenTopicNamesTheFilterItWasMeantFor() {
        #expect(
            UnmatchedTopic.warning(topic: "spBv1/0/plant/NDATA/line-1", filters: ["a/#", "spBv1.0/plant/+/line-1/#"])
                == "the broker rewrote the topic: got 'spBv1/0/plant/NDATA/line-1' for filter 'spBv1.0/plant/+/line-1/#'")
    }

    @Test func anotherTopicNamesTheSubscriptions() {
        #expect(
            UnmatchedTopic.warning(topic: "x/y", filters: ["a/1", "a/2", "a/3", "a/4"])
                == "the broker delivered a message on 'x/y', which none of the subscriptions ('a/1', 'a/2', 'a/3' and 1 more) match")
    }
}
