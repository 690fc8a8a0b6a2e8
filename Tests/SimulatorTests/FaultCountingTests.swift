import Foundation
import Report
import Signals
import Simulator
import Testing
import TestSupport

@Suite struct FaultCountersTests {
    @Test func countersAddFaultsAndTotalsSumThemOverLoops() {
        let first = Counters()
        let second = Counters()
        first.add(faults: FaultCounts(spike: 2, stuck: 1, dropout: 0, drift: 5))
        first.add(faults: FaultCounts(spike: 1))
        second.add(faults: FaultCounts(dropout: 4, drift: 1))
        #expect(first.faults == FaultCounts(spike: 3, stuck: 1, dropout: 0, drift: 5))
        #expect(Totals([first, second]).faults == FaultCounts(spike: 3, stuck: 1, dropout: 4, drift: 6))
        // Faults stand apart from the tick accounting.
        #expect(Totals([first, second])[.scheduled] == 0)
    }
}

/// Faults counted by the running fleet, against a real mosquitto.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct FleetFaultTests {
    @Test func everyFiredFaultReachesTheReport() throws {
        let broker = try MosquittoBroker()
        let subscriber = try Subscriber(broker: broker, topic: "faulty/#")
        let yaml = """
            devices:
              - name: sensor
                count: 2
                topic: "faulty/{id}"
                publish: 50/s
                payload:
                  style: flat
                  fields:
                    gone: { constant: 1, faults: { dropout: { probability: 1, mode: null } } }
                    drifting: { constant: 20, faults: { drift: { perHour: 1 } } }
                    location:
                      fields:
                        lat: { constant: 52.5, faults: { dropout: { probability: 1 } } }
                        lon: { constant: 13.4 }
            """
        let result = try #require(try FleetHarness.run(yaml, port: broker.port, settings: RunSettings(messages: 40, statsInterval: nil)))
        #expect(result.totals[.published] == 40)
        #expect(result.totals.faults == FaultCounts(spike: 0, stuck: 0, dropout: 80, drift: 40))
        #expect(subscriber.waitFor(count: 40, timeout: 5))
        let shape = try Regex(#"^\{"gone":null,"drifting":20(\.\d+)?,"location":\{"lon":13\.4\}\}$"#)
        for message in subscriber.messages {
            #expect(message.payloadText.wholeMatch(of: shape) != nil, "\(message.payloadText)")
        }

        let report = RunReport(result: result, scenarios: ["test.yaml"], seed: 1)
        let json = try #require(try JSONSerialization.jsonObject(with: report.json()) as? [String: Any])
        let faults = try #require(json["faults"] as? [String: Int])
        #expect(faults == ["spike": 0, "stuck": 0, "dropout": 80, "drift": 40])
    }
}
