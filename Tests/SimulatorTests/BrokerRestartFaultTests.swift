import Simulator
import Testing
import TestSupport

/// Issue 6, fault 1: the broker killed (-9) and restarted on the same port five times in one run,
/// with 100 devices at QoS 1 keeping their ticks while it is away.
@Suite(.serialized) struct BrokerRestartFaultTests {
    @Test func fiveRestartsWithAHundredDevices() throws {
        let broker = try MosquittoBroker()
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
        let harness = try FleetHarness(yaml, port: broker.port, settings: RunSettings(duration: 300, loops: 2, statsInterval: nil))
        harness.start()
        #expect(TestClock.wait(timeout: 10, interval: 0.02) { harness.fleet.totals.connectionsUp == 100 })
        for restart in 1...5 {
            TestClock.sleep(0.5)
            broker.kill()
            #expect(TestClock.wait(timeout: 10, interval: 0.02) { harness.fleet.totals.connectionsUp == 0 }, "restart \(restart): all down")
            TestClock.sleep(0.5)
            let before = harness.fleet.totals
            #expect(before.buffered > 0, "restart \(restart): the outage's ticks are kept")
            try broker.restart()
            // Backoff is at most 1 s (±20 %) here: every connection is back well within 3 s.
            let backUp = TestClock.wait(timeout: 3, interval: 0.02) { harness.fleet.totals.connectionsUp == 100 }
            #expect(backUp, "restart \(restart): every connection back within the backoff bound")
            let totals = harness.fleet.totals
            #expect(totals.accountsForEveryTick, "restart \(restart): every tick in exactly one place")
        }
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { harness.fleet.totals.buffered == 0 }, "the kept ticks are flushed")
        harness.fleet.requestStop()
        let result = try #require(try harness.result(timeout: 30), "devsim never exits or hangs on its own")
        #expect(result.reason == .requested)
        #expect(result.totals.reconnects == 500)
        #expect(result.totals.skippedOffline == 0)
        #expect(result.totals.droppedBuffer == 0)
        #expect(result.totals.buffered == 0)
        #expect(result.totals.failed == 0)
        #expect(result.totals.scheduled == result.totals.published, "with a big enough buffer every tick was published")
        #expect(result.totals.acknowledged == result.totals.published, "and the broker acknowledged every one")
    }
}
