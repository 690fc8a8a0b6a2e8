import Foundation
import Report
import Simulator
import Testing
import TestSupport

/// `run --verify` on Sparkplug edge nodes against a real mosquitto, in process: each node's
/// stream, seen from inside.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct SparkplugFleetVerifyTests {
    /// A broker restart: each node comes back with a new connection and an NBIRTH, which starts
    /// its seq again. The copies and gaps of neither side of it are invented, and each node's
    /// figures add up to what it published with a seq (births included): received, lost, and
    /// published while the verifier was away.
    @Test func aBrokerRestartRebirthsEachNodeAndTheFiguresAgree() throws {
        let broker = try MosquittoBroker()
        let yaml = """
            broker:
              reconnect: { initial: 200ms, max: 1s }
            devices:
              - name: filler
                count: 4
                publish: 25/s
                sparkplug: { groupId: plant, edgeNodeId: "line-{index}", nodes: 2, reporting: all }
                payload: { fields: { speed: { uniform: { min: 0, max: 10 } } } }
            """
        var settings = RunSettings(duration: .seconds(4), statsInterval: nil)
        settings.verify = true
        let harness = try FleetHarness(yaml, port: broker.port, settings: settings)
        harness.start()
        try harness.restart(broker, afterPublishing: 60, downFor: 0.3)
        let result = try #require(try harness.result(timeout: 15))
        let verify = try #require(result.verify)
        #expect(result.totals[.reconnects] >= 2, "both nodes came back")
        #expect(verify.duplicated == 0 && verify.outOfOrder == 0, "\(verify)")
        let nodes = harness.fleet.verifiedTopics
        #expect(nodes.map(\.topic) == ["spBv1.0/plant/+/line-1/#", "spBv1.0/plant/+/line-2/#"])
        for node in nodes {
            #expect(node.received + node.lost + node.missedWhileAway == node.published, "\(node.topic)")
            #expect(node.received > 60, "messages arrived before and after the restart: \(node.topic)")
            // Its NBIRTHs: the first, and the new connection's unless the verifier was not back yet.
            #expect((1...2).contains(node.node?.births ?? 0), "\(node.topic)")
        }
        #expect(nodes.reduce(0) { $0 + $1.lost } == verify.lost)
        #expect(verify.e2eLatency != nil)
    }
}
