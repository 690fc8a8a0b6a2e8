import Foundation
import Testing
import TestSupport

/// Issue 29, item 4: how long connecting takes, phase by phase, against a real mosquitto over
/// TCP, TLS and WebSockets: one sample per connection made in each phase it went through, and
/// none of the phases it did not.
@Suite(.serialized, .tags(.integration), .notUnitOnly) struct ConnectTimingsRunTests {
    static let devices = """
        devices:
          - name: meter
            count: 3
            topic: "timings/{index}"
            publish: 5/s
            qos: 1
            payload: { fields: { n: { counter: 0 } } }
        """

    /// The report's `connectTimings`, and each phase's count in it and in its raw histograms.
    static func phaseCounts(_ report: [String: Any]) -> (percentiles: [String: Int], histograms: [String: Int]) {
        func counts(_ object: Any?) -> [String: Int] {
            ((object as? [String: [String: Any]]) ?? [:]).compactMapValues { $0["count"] as? Int }
        }
        return (counts(report["connectTimings"]), counts((report["histograms"] as? [String: Any])?["connectTimings"]))
    }

    /// Every phase the report has, with one sample per connection made, is `expected`.
    static func expectPhases(_ report: [String: Any], _ expected: Set<String>, sourceLocation: SourceLocation = #_sourceLocation) {
        let connections = report["connections"] as? Int ?? 0
        #expect(connections == 3 && report["reconnects"] as? Int == 0, "\(report)", sourceLocation: sourceLocation)
        let (percentiles, histograms) = phaseCounts(report)
        let each = Dictionary(uniqueKeysWithValues: expected.map { ($0, connections) })
        #expect(percentiles == each && histograms == each, "\(report["connectTimings"] ?? "none")", sourceLocation: sourceLocation)
        // A phase whose end was not seen would end with the next, which would then be 0 long:
        // every one is a round trip or a call at least.
        let raw = (report["histograms"] as? [String: Any])?["connectTimings"] as? [String: [String: Any]] ?? [:]
        #expect(raw.allSatisfy { ($0.value["min"] as? Int ?? 0) > 0 }, "every phase's end was seen: \(raw)", sourceLocation: sourceLocation)
    }

    @Test func overTCPTheReportMetricsAndExpectHaveTheTimings() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario("timings.yaml", Self.devices)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(
            file, port: broker.port,
            [
                "--duration", "30s", "--http", "0", "--expect", "connect.p99<60s", "--expect", "connect.count==3", "--expect",
                "connack.count>=3",
            ], report: true)
        let port = try #require(ServiceTests.servedPort(devsim), "\(devsim.stderr)")
        // The loops' histograms reach /metrics at the next probe, each second.
        let scrape = { try HTTPGet.request(port: port, path: "/metrics").body }
        #expect(
            TestClock.wait(timeout: 15, interval: 0.05) { (try? ServiceTests.value(scrape(), "devsim_connect_seconds_count")) == 3 },
            "\(devsim.stderr)")
        let metrics = try scrape()
        #expect(devsim.terminate(grace: 15) == 0, "\(devsim.stderr)")
        let checked = try ServiceTests.promtool(metrics)
        #expect(checked.status == 0, "promtool check metrics: \(checked.stdout)\(checked.stderr)\n\(metrics)")
        #expect(ServiceTests.repeatedSeries(metrics).isEmpty, "\(ServiceTests.repeatedSeries(metrics))")
        for phase in ["tcp_connect", "connack"] {
            #expect(ServiceTests.value(metrics, "devsim_connect_phase_seconds_count{phase=\"\(phase)\"}") == 3, "\(metrics)")
        }
        #expect(!metrics.contains("phase=\"tls_handshake\"") && !metrics.contains("phase=\"ws_upgrade\""), "\(metrics)")

        let report = try RunFiles.report(file + ".json")
        Self.expectPhases(report, ["connect", "tcpConnect", "connack"])
        #expect(devsim.stderr.contains("connect times: 3 connections: connect p50 "), "\(devsim.stderr)")
    }

    @Test func expectFailsOnAnImpossibleBoundAndOnAPhaseThatDidNotHappen() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario("timings-fail.yaml", Self.devices)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(
            file, port: broker.port,
            ["--duration", "1s", "--expect", "connect.p99<0ms", "--expect", "tlsHandshake.p99<1s", "--expect", "connect.count==3"],
            report: true)
        #expect(result.status == 4, "\(result.stderr)")
        let verdicts = try RunFiles.report(file + ".json")["expectations"] as? [[String: Any]] ?? []
        #expect(verdicts.map { $0["passed"] as? Bool } == [false, false, true], "\(verdicts)")
        #expect(verdicts.dropFirst().first?["message"] as? String == "not available: no connection used TLS (mqtts:// or wss://)")
    }

    @Test func overTLSTheHandshakeIsAPhase() throws {
        let certificates = try TestCertificates(host: "127.0.0.1")
        defer { certificates.remove() }
        let broker = try MosquittoBroker(extraConfig: certificates.listenerConfig)
        let file = try RunFiles.scenario("timings-tls.yaml", "broker: { tls: { ca: \(certificates.ca) } }\n" + Self.devices)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, port: broker.port, ["--duration", "1s", "--expect", "tlsHandshake.count==3"], report: true)
        #expect(result.status == 0, "\(result.stderr)\n\(broker.log)")
        Self.expectPhases(try RunFiles.report(file + ".json"), ["connect", "tcpConnect", "tlsHandshake", "connack"])
    }
}

/// Over WebSockets, whose upgrade is a phase, with TLS (wss://) and without: mosquitto's
/// WebSocket listener binds every interface, so the broker and devsim run in a network
/// namespace of the test's own (as `WebSocketTests`).
@Suite(.serialized, .tags(.integration, .root), .notUnitOnly) struct ConnectTimingsWebSocketTests {
    @Test(arguments: [false, true]) func theUpgradeIsAPhase(secure: Bool) throws {
        let namespace = try NetworkNamespace()
        let certificates = try TestCertificates(host: "127.0.0.1")
        defer { certificates.remove() }
        let broker = try MosquittoBroker(
            extraConfig: ["listener 8080", "protocol websockets"] + (secure ? certificates.listenerConfig : []), namespace: namespace)
        let url = "\(secure ? "wss" : "ws")://127.0.0.1:8080/mqtt"
        let file = try RunFiles.scenario(
            "timings-ws.yaml",
            "broker:\n  url: \"\(url)\"\n" + (secure ? "  tls: { ca: \(certificates.ca) }\n" : "") + ConnectTimingsRunTests.devices)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, ["--duration", "1s", "--expect", "wsUpgrade.count==3"], report: true, namespace: namespace)
        #expect(result.status == 0, "\(result.stderr)\n\(broker.log)")
        ConnectTimingsRunTests.expectPhases(
            try result.report(),
            secure ? ["connect", "tcpConnect", "tlsHandshake", "wsUpgrade", "connack"] : ["connect", "tcpConnect", "wsUpgrade", "connack"])
    }
}
