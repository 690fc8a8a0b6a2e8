import Report
import Simulator
import Testing
import TestSupport

/// Issue 6, fault 1: the broker stopped and restarted on the same port five times in one run,
/// with 100 devices at QoS 1 keeping their ticks while it is away, and a subscriber with a
/// persistent session on a broker with persistence counting what was delivered.
///
/// Killed (-9), the broker loses what it acknowledged since its last save (every second): that
/// tests its persistence, not devsim, so a kill proves what devsim promises (every connection
/// back, every tick resumed and in one counter, every one acknowledged), and a stop (SIGTERM,
/// on which mosquitto saves its database) proves delivery too, where the broker promises it.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct BrokerRestartFaultTests {
    enum Stop: String, CaseIterable, Sendable {
        case kill, terminate
    }

    @Test(arguments: Stop.allCases)
    func fiveRestartsWithAHundredDevices(stop: Stop) throws {
        // No limit on what the broker holds for the subscriber, and no in-flight window to hold
        // the rest in memory, where a kill would lose it before the next save.
        let broker = try MosquittoBroker(persistent: true, extraConfig: ["max_queued_messages 0", "max_inflight_messages 0"])
        let subscriber = try Subscriber(broker: broker, topic: "restart/#", qos: 1, sessionID: "restart-counter")
        // The broker saves every second: the subscriber's session must be on disk before a kill.
        TestClock.sleep(1.5)
        let yaml = """
            broker:
              reconnect: { initial: 200ms, max: 1s }
            offline: { policy: buffer, maxMessages: 1000 }
            devices:
              - name: meter
                count: 100
                topic: "restart/{id}"
                publish: 5/s
                qos: 1
                rampUp: 1000/s
                payload:
                  fields:
                    seq: { counter: 0 }
            """
        let harness = try FleetHarness(
            yaml, port: broker.port, settings: RunSettings(duration: .seconds(300), loops: 2, statsInterval: nil))
        harness.start()
        #expect(TestClock.wait(timeout: 10, interval: 0.02) { harness.fleet.totals.connectionsUp == 100 })
        for restart in 1...5 {
            TestClock.sleep(0.5)
            // What the broker kept for the subscriber while it was away lives in memory until the
            // next save: let it be delivered first, or the kill would lose it, not devsim.
            let acknowledged = harness.fleet.totals[.acknowledged]
            #expect(
                TestClock.wait(timeout: 10, interval: 0.02) { Self.delivered(subscriber).count >= acknowledged },
                "restart \(restart): the subscriber has what was acknowledged")
            switch stop {
            case .kill: broker.kill()
            case .terminate: broker.stop(grace: 10)
            }
            #expect(TestClock.wait(timeout: 10, interval: 0.02) { harness.fleet.totals.connectionsUp == 0 }, "restart \(restart): all down")
            TestClock.sleep(0.5)
            let before = harness.fleet.totals
            #expect(before[.buffered] > 0, "restart \(restart): the outage's ticks are kept")
            try broker.restart()
            // Backoff is at most 1 s (±20 %) here: every connection is back well within 3 s.
            let backUp = TestClock.wait(timeout: 3, interval: 0.02) { harness.fleet.totals.connectionsUp == 100 }
            #expect(backUp, "restart \(restart): every connection back within the backoff bound")
            let totals = harness.fleet.totals
            #expect(
                (0...2).contains(totals.ticksInProgress),
                "restart \(restart): every tick in exactly one place, but those being made on the 2 loops: \(totals)")
        }
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { harness.fleet.totals[.buffered] == 0 }, "the kept ticks are flushed")
        harness.fleet.requestStop()
        let result = try #require(try harness.result(timeout: 30), "devsim never exits or hangs on its own")
        #expect(result.reason == .requested)
        #expect(result.totals[.reconnects] == 500)
        #expect(result.totals[.skippedOffline] == 0)
        #expect(result.totals[.droppedBuffer] == 0)
        #expect(result.totals[.buffered] == 0)
        #expect(result.totals[.failed] == 0)
        #expect(result.totals[.scheduled] == result.totals[.published], "with a big enough buffer every tick was published")
        #expect(result.totals[.acknowledged] == result.totals[.published], "and the broker acknowledged every one")
        if stop == .terminate {
            #expect(
                TestClock.wait(timeout: 10, interval: 0.05) { Self.delivered(subscriber).count == result.totals[.published] },
                "every tick delivered: \(Self.delivered(subscriber).count) of \(result.totals[.published])")
        }
        // Lateness is measured at publication: the ticks kept through each outage show it.
        #expect(result.lateness.count == UInt64(result.totals[.published]))
        #expect(result.lateness.max >= 500_000_000)
    }

    /// Distinct (topic, seq) pairs the subscriber received; redeliveries after a restart count once.
    private static func delivered(_ subscriber: Subscriber) -> Set<String> {
        Set(
            subscriber.messages.map { message in
                let text = message.payloadText
                let seq = text.range(of: "\"seq\":").map { text[$0.upperBound...].prefix { $0.isNumber } } ?? ""
                return message.topic + " " + seq
            })
    }
}
