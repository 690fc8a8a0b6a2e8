import Foundation
import MQTT
import Simulator
import Testing
import TestSupport
import Transport

/// Issue 27: with a certificate per device, a reload that keeps every TLS context of the plans
/// before it would keep ~20 KB per device each time. It makes the new plan's contexts before
/// its devices connect, and lets go of those no connection of the new plan uses.
@Suite(.tags(.integration), .notUnitOnly) struct TLSReloadTests {
    private static func scenario(ca: String, alpn: String) -> String {
        ScenarioText(broker: ["tls: { ca: \(ca), alpn: [\(alpn)] }"], group: "meter", topic: "tr/{index}", publish: "1/s").text
    }

    @Test func aReloadReleasesTheContextsOfIdentitiesGone() throws {
        let certificates = try TestCertificates(host: "127.0.0.1")
        defer { certificates.remove() }
        let broker = try MosquittoBroker(extraConfig: certificates.listenerConfig)
        // A different ALPN is a different context (mosquitto ignores ALPN).
        let before = TLSSettings(ca: certificates.ca, alpn: ["before"])
        let after = TLSSettings(ca: certificates.ca, alpn: ["after"])
        let harness = try FleetHarness(
            Self.scenario(ca: certificates.ca, alpn: "before"), port: broker.port, settings: RunSettings(statsInterval: nil))
        let file = certificates.directory + "/after.yaml"
        try Self.scenario(ca: certificates.ca, alpn: "after").write(toFile: file, atomically: true, encoding: .utf8)
        harness.start()
        #expect(TestClock.wait(timeout: 10, interval: 0.02) { harness.fleet.totals.connectionsUp == 1 })
        #expect(TLSContexts.isMade(before, host: "127.0.0.1"))
        let reload = harness.fleet.reload([file], environment: [:], overridden: ["broker.host", "broker.port"])
        #expect(reload.error == nil, "\(reload)")
        #expect(!TLSContexts.isMade(before, host: "127.0.0.1"), "released")
        #expect(TLSContexts.isMade(after, host: "127.0.0.1"), "made at the reload")
        // The connection of the new plan comes up with it.
        #expect(TestClock.wait(timeout: 10, interval: 0.02) { harness.fleet.totals.connectionsUp == 1 })
        harness.fleet.requestStop()
        _ = try #require(try harness.result(timeout: 10))
    }
}
