import Foundation
import Report
import Simulator
import Testing
import TestSupport

/// Subscriber groups through a broker restart: each member connects again and subscribes
/// again after its CONNACK, so what the devices publish after the restart reaches it.
@Suite(.tags(.integration), .notUnitOnly) struct SubscriberBrokerTests {
    @Test func afterABrokerRestartEveryMemberSubscribesAgain() throws {
        let broker = try MosquittoBroker()
        let yaml = """
            broker:
              reconnect: { initial: 200ms, max: 1s }
            devices:
              - name: sensor
                count: 3
                topic: "r/{index}/data"
                publish: 50/s
                qos: 1
                payload: { style: flat, fields: { seq: { counter: 0 }, ts: { timestamp: us } } }
            subscribers:
              - name: watchers
                count: 2
                topics: ["r/+/data"]
                qos: 1
            """
        let harness = try FleetHarness(yaml, port: broker.port, settings: RunSettings(duration: .seconds(4), statsInterval: nil))
        harness.start()
        #expect(TestClock.wait(timeout: 5, interval: 0.01) { harness.fleet.totals[.published] >= 60 })
        broker.kill()
        #expect(TestClock.wait(timeout: 5, interval: 0.01) { harness.fleet.totals.connectionsUp == 0 })
        TestClock.sleep(0.3)
        try broker.restart()
        let result = try #require(try harness.result(timeout: 20))
        let watchers = try #require(result.subscribers.first)
        let skipped = result.totals[.skippedOffline]
        #expect(skipped > 0 && watchers.subscribed == 2 && watchers.duplicates == 0, "\(watchers)")
        // A member that received nothing after the restart would have no gap: the ticks the
        // devices skipped while the broker was away are holes only below a number that came.
        #expect(watchers.gaps >= 2 * skipped, "skipped \(skipped): \(watchers)")
        #expect(watchers.received > 0 && watchers.received <= 2 * result.totals[.published], "\(watchers)")
    }
}
