import Foundation
import Report
import Simulator
import Testing
import TestSupport

/// The fleet against a real mosquitto started on a free loopback port.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct FleetBrokerTests {
    @Test func messagesArriveWithTheirTopicsAndMilkcocoaShape() throws {
        let broker = try MosquittoBroker()
        let subscriber = try Subscriber(broker: broker, topic: "app/#")
        let yaml = """
            devices:
              - name: phone
                count: 3
                topic: "app/{id}/push"
                sample: 10Hz
                publish: 20/s
                payload:
                  fields:
                    Accel_X: { accelerometer: x, decimals: 4 }
                    Accel_Y: { accelerometer: y, decimals: 4 }
            """
        let result = try #require(try FleetHarness.run(yaml, port: broker.port, settings: RunSettings(messages: 30, statsInterval: nil)))
        #expect(result.reason == .messages)
        #expect(result.totals[.scheduled] == 30)
        #expect(result.totals[.published] == 30)
        #expect(subscriber.waitFor(count: 30, timeout: 5))
        let messages = subscriber.messages
        #expect(Set(messages.map(\.topic)) == ["app/phone-1/push", "app/phone-2/push", "app/phone-3/push"])
        let shape = try Regex(#"^\{"params":\{"Accel_X":-?\d+\.\d{4},"Accel_Y":-?\d+\.\d{4}\}\}$"#)
        for message in messages {
            #expect(message.payloadText.wholeMatch(of: shape) != nil, "\(message.payloadText)")
        }
    }

    @Test func everyQoS1MessageIsAcknowledged() throws {
        let broker = try MosquittoBroker()
        let yaml = """
            devices:
              - name: meter
                count: 4
                topic: "meters/{index}"
                publish: 50/s
                qos: 1
                payload:
                  style: flat
                  fields:
                    seq: { counter: 0 }
            """
        let result = try #require(try FleetHarness.run(yaml, port: broker.port, settings: RunSettings(messages: 200, statsInterval: nil)))
        #expect(result.totals[.published] == 200)
        #expect(result.totals[.acknowledged] == 200)
        #expect(result.totals[.inFlight] == 0)
        #expect(result.latency.count == 200, "one latency per acknowledgement")
        #expect(result.lateness.count == 200, "one lateness per tick")
        #expect(result.latency.percentile(50) > 0)
        #expect(result.connectionsUpAtEnd == 4)
    }

    @Test func aBrokerRestartPausesAndResumesWithEveryTickCounted() throws {
        let broker = try MosquittoBroker()
        let yaml = """
            broker:
              reconnect: { initial: 200ms, max: 1s }
            devices:
              - name: sensor
                count: 2
                topic: "s/{index}"
                publish: 20/s
                payload:
                  fields:
                    v: { uniform: { min: 0, max: 1 }, decimals: 2 }
            """
        let harness = try FleetHarness(yaml, port: broker.port, settings: RunSettings(duration: .seconds(4), statsInterval: nil))
        harness.start()
        #expect(TestClock.wait(timeout: 5, interval: 0.01) { harness.fleet.totals[.published] >= 20 })
        broker.kill()
        #expect(TestClock.wait(timeout: 5, interval: 0.01) { harness.fleet.totals.connectionsUp == 0 })
        TestClock.sleep(0.5)
        let duringOutage = harness.fleet.totals
        #expect(duringOutage[.skippedOffline] > 0)
        try broker.restart()
        #expect(TestClock.wait(timeout: 5, interval: 0.01) { harness.fleet.totals.connectionsUp == 2 })
        let backUp = harness.fleet.totals[.published]
        let result = try #require(try harness.result(timeout: 10))
        #expect(result.totals[.reconnects] == 2)
        // Ticks due at or after the end of --duration do not happen: at most 4 s × 20/s each.
        #expect(result.totals[.scheduled] <= 2 * 80)
        #expect(result.totals[.published] > backUp, "publishing resumed after the restart")
        #expect(result.totals.accountsForEveryTick)
        #expect(result.connectionsUpAtEnd == 2)
    }

    @Test func bufferedTicksAreFlushedInOrderAfterTheRestart() throws {
        let broker = try MosquittoBroker()
        let subscriber = try Subscriber(broker: broker, topic: "b/#", qos: 1)
        let yaml = """
            broker:
              reconnect: { initial: 200ms, max: 1s }
            offline: { policy: buffer, maxMessages: 1000 }
            devices:
              - name: tracker
                topic: "b/{index}"
                publish: 20/s
                qos: 1
                payload:
                  style: flat
                  fields:
                    seq: { counter: 0 }
            """
        let harness = try FleetHarness(yaml, port: broker.port, settings: RunSettings(duration: .seconds(3), statsInterval: nil))
        harness.start()
        #expect(TestClock.wait(timeout: 5, interval: 0.01) { harness.fleet.totals[.acknowledged] >= 10 })
        broker.kill()
        TestClock.sleep(0.5)
        #expect(harness.fleet.totals[.buffered] > 0)
        try broker.restart()
        let result = try #require(try harness.result(timeout: 10))
        #expect(result.totals[.skippedOffline] == 0)
        #expect(result.totals[.droppedBuffer] == 0)
        #expect(result.totals[.buffered] == 0)
        #expect(result.totals[.published] == result.totals[.scheduled])
        #expect(result.totals[.acknowledged] == result.totals[.published])
        // QoS 1 may deliver a message twice (resent after the restart); first sightings must
        // still come in publishing order, the buffered ticks before the new ones.
        let seqs = subscriber.messages.compactMap { Int(String($0.payloadText.dropFirst(7).dropLast())) }
        var seen = Set<Int>()
        let firstSightings = seqs.filter { seen.insert($0).inserted }
        #expect(firstSightings == firstSightings.sorted())
        #expect(firstSightings.count > 20)
    }
}

/// `publish: max`: as fast as the broker takes, within the window and the socket's room.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct PublishAtMaxTests {
    private func yaml(qos: Int) -> String {
        ScenarioText(group: "blast", topic: "max/{index}", publish: "max", qos: qos).text
    }

    @Test func qos1KeepsWithinItsWindowAndEverythingIsAcknowledged() throws {
        let broker = try MosquittoBroker()
        let harness = try FleetHarness(
            yaml(qos: 1), port: broker.port,
            settings: RunSettings(duration: .seconds(1.5), statsInterval: nil, maxInFlight: 8))
        harness.start()
        var largestWindow = 0
        let deadline = TestClock.now() + 10
        var result: RunResult?
        while result == nil, TestClock.now() < deadline {
            largestWindow = max(largestWindow, harness.fleet.totals[.inFlight])
            result = try harness.result(timeout: 0.005)
        }
        let finished = try #require(result)
        #expect(finished.totals[.published] > 1000, "at max, a second and a half is thousands of messages")
        #expect(finished.totals[.acknowledged] == finished.totals[.published])
        #expect(finished.totals[.scheduled] == finished.totals[.published])
        #expect(largestWindow <= 8)
    }

    @Test func qos0MessagesArriveInOrder() throws {
        let broker = try MosquittoBroker()
        let subscriber = try Subscriber(broker: broker, topic: "max/#")
        let result = try #require(
            try FleetHarness.run(
                yaml(qos: 0), port: broker.port,
                settings: RunSettings(messages: 5000, statsInterval: nil)))
        #expect(result.totals[.published] == 5000)
        #expect(subscriber.waitFor(count: 5000, timeout: 10))
        let seqs = subscriber.messages.compactMap { message -> Int? in
            guard let range = message.payloadText.range(of: #"(?<="seq":)\d+"#, options: .regularExpression) else { return nil }
            return Int(message.payloadText[range])
        }
        #expect(seqs == Array(0..<5000))
    }
}

@Suite(.tags(.integration), .notUnitOnly) struct GroupFiguresTests {
    @Test func eachGroupHasItsOwnFiguresAndTheyAddUpToTheTotals() throws {
        let broker = try MosquittoBroker()
        let yaml = """
            devices:
              - name: fast
                count: 2
                topic: "g/{id}"
                publish: 40/s
                qos: 1
                payload: { fields: { n: { counter: 0 } } }
              - name: slow
                topic: "g/{id}"
                publish: 10/s
                payload: { fields: { n: { counter: 0 } } }
            """
        let result = try #require(
            try FleetHarness.run(yaml, port: broker.port, settings: RunSettings(duration: .seconds(1.5), statsInterval: nil)))
        #expect(result.groups.map(\.name) == ["fast", "slow"])
        let fast = result.groups[0].totals, slow = result.groups[1].totals
        #expect(fast[.published] > slow[.published])
        #expect(fast[.acknowledged] == fast[.published])
        #expect(slow[.acknowledged] == 0, "QoS 0 has no acknowledgements")
        #expect(fast[.published] + slow[.published] == result.totals[.published])
        #expect(fast[.scheduled] + slow[.scheduled] == result.totals[.scheduled])
        #expect(result.connectionErrors.isEmpty)
    }
}
