import Report
import Simulator
import Testing
import TestSupport

/// Many devices, one connection each, against a real mosquitto.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct ScaleTests {
    @Test func twoThousandDevicesAllConnectAllPublishAndTheSubscriberAgrees() throws {
        let broker = try MosquittoBroker(extraConfig: ["max_connections -1"])
        let subscriber = try Subscriber(broker: broker, topic: "scale/#", qos: 1)
        let yaml = """
            devices:
              - name: node
                count: 2000
                topic: "scale/{id}"
                publish: 1/2s
                qos: 1
                rampUp: 2000/s
                jitter: auto
                payload:
                  style: flat
                  fields:
                    seq: { counter: 0 }
            """
        let result = try #require(
            try FleetHarness.run(
                yaml, port: broker.port,
                settings: RunSettings(duration: .seconds(5), loops: 2, statsInterval: nil), timeout: 60))
        #expect(result.connections == 2000)
        #expect(result.connectionsUpAtEnd == 2000)
        #expect(result.allConnectedSeconds != nil)
        #expect(result.totals[.failed] == 0)
        #expect(result.totals[.published] >= 2000 * 2, "every device publishes at least twice in 5 s at 1/2s")
        #expect(result.totals[.acknowledged] == result.totals[.published])
        #expect(subscriber.waitFor(count: result.totals[.published], timeout: 20))
        #expect(subscriber.messages.count == result.totals[.published], "the subscriber counts what the report says")
        #expect(Set(subscriber.messages.map(\.topic)).count == 2000, "every device was heard")
    }
}
