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
        // Nothing is published while every connection is down.
        let before = try harness.restart(broker, afterPublishing: 60, downFor: 0.3)
        let result = try #require(try harness.result(timeout: 20))
        let watchers = try #require(result.subscribers.first)
        let after = result.totals[.published] - before
        #expect(result.totals[.skippedOffline] > 0 && watchers.subscribed == 2 && watchers.duplicates == 0, "\(watchers)")
        // A member that received nothing after the restart leaves the two at most 2 × before
        // + after (no copies: duplicates 0); both receiving after it, more.
        #expect(watchers.received > 2 * before + after, "\(before) before, \(after) after: \(watchers)")
        #expect(watchers.received <= 2 * result.totals[.published], "\(watchers)")
    }

    /// Issue 38, item 2: a reconnect storm (`disconnect: all`) has the devices skip their ticks
    /// while down; a subscriber that stayed up received every message published, and those
    /// skipped ticks, never published, are no gaps: a tick skipped offline is not made, and
    /// takes no number of the counter.
    @Test func ticksSkippedOfflineAreNoGaps() throws {
        let broker = try MosquittoBroker()
        let yaml = """
            broker:
              reconnect: { initial: 500ms, max: 1s }
            devices:
              - name: sensor
                count: 4
                topic: "s/{index}/data"
                publish: 10/s
                qos: 1
                payload: { style: flat, fields: { seq: { counter: 0 }, ts: { timestamp: us } } }
            stages:
              - { duration: 1500ms, multiplier: 1 }
              - { duration: 2s, disconnect: all }
              - { duration: 1500ms, multiplier: 1 }
            subscribers:
              - name: watchers
                topics: ["s/+/data"]
                qos: 1
            """
        let result = try #require(
            try FleetHarness.run(yaml, port: broker.port, settings: RunSettings(duration: .seconds(5), statsInterval: nil)))
        let watchers = try #require(result.subscribers.first)
        #expect(result.totals[.skippedOffline] > 0 && result.totals[.inFlight] == 0, "\(result.totals)")
        #expect(watchers.gaps == 0 && watchers.duplicates == 0, "\(watchers)")
        #expect(watchers.received == result.totals[.published], "\(watchers) of \(result.totals[.published])")
    }
}
