import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 12: MQTT over WebSockets against a real mosquitto 2.0 with a WebSocket listener. That
/// listener binds every interface whatever its line says, so the broker and devsim run in a
/// network namespace of the test's own, where nothing is reachable but its loopback.
@Suite(.serialized, .tags(.integration, .root), .notUnitOnly) struct WebSocketTests {
    /// The WebSocket listener's port, inside the namespace (which has ports to itself).
    static let webSocketPort = 8080

    /// A broker with its plain listener (which mosquitto 2.0 needs beside a WebSocket one) and a
    /// WebSocket listener, with `webSocketConfig` lines for it (TLS).
    private func broker(_ namespace: NetworkNamespace, webSocketConfig: [String] = []) throws -> MosquittoBroker {
        try MosquittoBroker(
            extraConfig: ["listener \(Self.webSocketPort)", "protocol websockets"] + webSocketConfig, namespace: namespace)
    }

    private static let qos1 = """
        devices:
          - name: meter
            count: 3
            topic: "ws/meter/{index}"
            publish: 20/s
            qos: 1
            payload: { fields: { seq: { counter: 0 }, ts: { timestamp: ms } } }
        """

    @Test func theSeedScenarioAndQoS1GoOverWebSocketsWithNothingLost() throws {
        let namespace = try NetworkNamespace()
        let broker = try broker(namespace)
        let seed = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scenarios/milkcocoa-accelerometer.yaml").path
        let url = "ws://127.0.0.1:\(Self.webSocketPort)/mqtt"
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("devsim-ws-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: report) }
        let seedRun = try DevsimRun(
            seed, ["--url", url, "--duration", "3s", "--verify", "--report", report, "--quiet"], statsInterval: nil, namespace: namespace)
        #expect(seedRun.status == 0, "\(seedRun.stderr)\n\(broker.log)")
        let seedFigures = try RunFiles.report(report)
        #expect((seedFigures["published"] as? Int ?? 0) >= 2, "\(seedFigures)")
        #expect((seedFigures["verify"] as? [String: Any])?["lost"] as? Int == 0, "\(seedFigures)")

        let file = try RunFiles.scenario("ws.yaml", "broker: { url: \"\(url)\" }\n" + Self.qos1)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, ["--duration", "3s", "--verify"], report: true, namespace: namespace)
        #expect(result.status == 0, "\(result.stderr)\n\(broker.log)")
        let figures = try result.report()
        let published = figures["published"] as? Int ?? 0
        #expect(published >= 150, "\(figures)")
        #expect(figures["acknowledged"] as? Int == published && figures["inFlight"] as? Int == 0, "\(figures)")
        let verify = figures["verify"] as? [String: Any] ?? [:]
        #expect(verify["lost"] as? Int == 0 && verify["received"] as? Int == published, "\(verify)")
        #expect((figures["connectionErrors"] as? [String: Int] ?? [:]).isEmpty, "\(figures)")
    }

    @Test func devicesPauseAndResumeAcrossABrokerRestartOverWebSockets() throws {
        let namespace = try NetworkNamespace()
        let broker = try broker(namespace)
        let file = try RunFiles.scenario(
            "ws-restart.yaml",
            """
            broker:
              url: "ws://127.0.0.1:\(Self.webSocketPort)/mqtt"
              reconnect: { initial: 200ms, max: 1s }
            offline: { policy: buffer, maxMessages: 1000 }
            """ + "\n" + Self.qos1)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, ["--duration", "6s"], report: true, namespace: namespace)
        #expect(devsim.waitForOutput(containing: "connected", inStderr: true, timeout: 10), "\(devsim.stderr)")
        TestClock.sleep(1.5)
        broker.kill()
        TestClock.sleep(1)
        try broker.restart()
        #expect(devsim.waitUntilExit(timeout: 30) == 0, "\(devsim.stderr)")
        let figures = try RunFiles.report(file + ".json")
        #expect((figures["reconnects"] as? Int ?? 0) >= 3, "each connection came back: \(figures)\n\(devsim.stderr)")
        #expect(figures["connectionsUp"] as? Int == 3, "\(figures)")
        #expect(RunFiles.accountsForEveryTick(figures), "every tick counted once: \(figures)")
        #expect(figures["inFlight"] as? Int == 0, "what was in flight was resent and acknowledged: \(figures)")
        let errors = figures["connectionErrors"] as? [String: Int] ?? [:]
        #expect(errors.keys.contains { $0.hasPrefix("connection lost") }, "\(errors)")
    }

    @Test func wssWithTheTestsCAConnectsAWrongCAIsRefusedAndInsecureIsAccepted() throws {
        let namespace = try NetworkNamespace()
        let certificates = try TestCertificates(host: "127.0.0.1")
        defer { certificates.remove() }
        let other = try TestCertificates(host: "127.0.0.1")
        defer { other.remove() }
        let broker = try broker(namespace, webSocketConfig: certificates.listenerConfig)
        let url = "wss://127.0.0.1:\(Self.webSocketPort)/mqtt"
        func attempt(_ tls: String, _ extra: [String] = []) throws -> (Int32?, String, [String: Any]) {
            let file = try RunFiles.scenario("wss.yaml", "broker:\n  url: \"\(url)\"\n  tls: \(tls)\n" + Self.qos1)
            defer { RunFiles.removeFolder(of: file) }
            let result = try DevsimRun(file, ["--duration", "2s"] + extra, report: true, namespace: namespace)
            return (result.status, result.stderr, (try? result.report()) ?? [:])
        }
        let (trusted, trustedLog, figures) = try attempt("{ ca: \(certificates.ca) }")
        #expect(trusted == 0, "\(trustedLog)\n\(broker.log)")
        #expect((figures["acknowledged"] as? Int ?? 0) > 0 && figures["acknowledged"] as? Int == figures["published"] as? Int, "\(figures)")

        let (wrong, wrongLog, _) = try attempt("{ ca: \(other.ca) }", ["--connect-timeout", "3s"])
        #expect(wrong == 3, "\(wrongLog)")
        #expect(wrongLog.contains("the broker's certificate is not trusted"), "\(wrongLog)")

        let (insecure, insecureLog, _) = try attempt("{ insecure: true }")
        #expect(insecure == 0, "\(insecureLog)")
    }

    /// The certificate's name is checked against the host: a certificate for another name, from
    /// a trusted CA, is refused, and `insecure` is what accepts it.
    @Test func wssRefusesACertificateForAnotherHost() throws {
        let namespace = try NetworkNamespace()
        let certificates = try TestCertificates(host: "elsewhere.example")
        defer { certificates.remove() }
        let broker = try broker(namespace, webSocketConfig: certificates.listenerConfig)
        let file = try RunFiles.scenario(
            "wss-host.yaml",
            "broker:\n  url: \"wss://127.0.0.1:\(Self.webSocketPort)/mqtt\"\n  tls: { ca: \(certificates.ca) }\n" + Self.qos1)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, ["--duration", "2s", "--connect-timeout", "2s"], namespace: namespace)
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("the broker's certificate is not trusted: IP address mismatch"), "\(result.stderr)\n\(broker.log)")
    }

    /// Issue 38, item 6, over wss://: a client certificate the broker's CA did not sign is named,
    /// file and subject, as over mqtts://, by the broker's alert the bridge reads.
    @Test func wssNamesAClientCertificateTheBrokerDoesNotTrust() throws {
        let namespace = try NetworkNamespace()
        let certificates = try TestCertificates(host: "127.0.0.1")
        defer { certificates.remove() }
        let stranger = try TestCertificates(host: "127.0.0.1", authority: "another CA")
        defer { stranger.remove() }
        try stranger.makeClientCertificate()
        let broker = try broker(namespace, webSocketConfig: certificates.listenerConfig + ["require_certificate true"])
        let client = stranger.directory + "/client.pem"
        let file = try RunFiles.scenario(
            "wss-client.yaml",
            "broker:\n  url: \"wss://127.0.0.1:\(Self.webSocketPort)/mqtt\"\n  tls: { ca: \(certificates.ca), certificate: \(client), "
                + "key: \(stranger.directory)/client.key }\n" + Self.qos1)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, ["--duration", "2s", "--connect-timeout", "2s"], namespace: namespace)
        #expect(result.status == 3, "\(result.stderr)")
        let attempts = result.stderr.split(separator: "\n").filter { $0.contains("cannot connect") }
        #expect(
            !attempts.isEmpty && attempts.allSatisfy { $0.contains("client certificate '\(client)' (subject CN=devsim-client") },
            "\(result.stderr)\n\(broker.log)")
    }

    /// QoS 2's four packets cross the bridge both ways.
    @Test func qos2OverWebSocketsCompletes() throws {
        let namespace = try NetworkNamespace()
        let broker = try broker(namespace)
        let file = try RunFiles.scenario(
            "ws-qos2.yaml",
            "broker: { url: \"ws://127.0.0.1:\(Self.webSocketPort)/mqtt\" }\n"
                + Self.qos1.replacingOccurrences(of: "qos: 1", with: "qos: 2"))
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, ["--duration", "2s", "--verify"], report: true, namespace: namespace)
        #expect(result.status == 0, "\(result.stderr)\n\(broker.log)")
        let figures = try result.report()
        let published = figures["published"] as? Int ?? 0
        #expect(published > 50 && figures["acknowledged"] as? Int == published, "\(figures)")
        #expect((figures["verify"] as? [String: Any])?["duplicated"] as? Int == 0, "\(figures)")
    }

    /// Item 4: what works over TCP works the same over WebSockets. MQTT 5 CONNECT properties pass
    /// the bridge untouched; the will rides in the CONNECT; a clean stop's DISCONNECT reaches the
    /// broker before the bridge closes (so no will), while a killed devsim's connection ends
    /// without one (so the will).
    @Test func mqtt5AndTheWillBehaveAsOverTCP() throws {
        let namespace = try NetworkNamespace()
        let broker = try broker(namespace)
        let file = try RunFiles.scenario(
            "ws-will.yaml",
            """
            broker:
              url: "ws://127.0.0.1:\(Self.webSocketPort)/mqtt"
              will: { topic: "wills/{id}", message: gone, qos: 1 }
            """ + "\n" + Self.qos1)
        defer { RunFiles.removeFolder(of: file) }
        let wills = try DevsimProcess(
            executable: "/usr/bin/mosquitto_sub", arguments: ["-h", "127.0.0.1", "-p", String(broker.port), "-t", "wills/#", "-v"],
            namespace: namespace)
        defer { wills.terminate(grace: 1) }
        TestClock.sleep(0.3)

        let clean = try DevsimRun(file, ["--protocol", "mqtt5", "--duration", "2s"], report: true, namespace: namespace)
        #expect(clean.status == 0, "\(clean.stderr)\n\(broker.log)")
        let figures = try clean.report()
        #expect((figures["acknowledged"] as? Int ?? 0) > 0 && figures["acknowledged"] as? Int == figures["published"] as? Int, "\(figures)")
        TestClock.sleep(1)
        #expect(!wills.stdout.contains("gone"), "a clean stop publishes no will: \(wills.stdout)\n\(broker.log)")

        let killed = try DevsimRun.start(file, namespace: namespace)
        #expect(
            TestClock.wait(timeout: 10, interval: 0.02) { killed.stderr.components(separatedBy: " connected").count > 3 },
            "\(killed.stderr)")
        killed.sendSignal(SIGKILL)
        _ = killed.waitUntilExit(timeout: 5)
        #expect(wills.waitForOutput(containing: "wills/meter-3 gone", timeout: 5), "a lost connection's will: \(wills.stdout)")
    }

    /// Item 2: back-pressure holds through the bridge. A link of 256 kbit/s (tc tbf) under QoS 0
    /// at publish: max: the bridge stops reading libmosquitto, libmosquitto's socket backs up,
    /// and what cannot go waits in the bounded queue; memory stays bounded.
    @Test func aSlowBrokerBacksTheBridgeUpInsteadOfItsMemory() throws {
        let namespace = try NetworkNamespace()
        let broker = try broker(namespace)
        try namespace.run("ip", "link", "set", "lo", "mtu", "1500")
        try namespace.run("tc", "qdisc", "add", "dev", "lo", "root", "tbf", "rate", "256kbit", "burst", "4kb", "latency", "500ms")
        let file = try RunFiles.scenario(
            "ws-slow.yaml",
            """
            broker: { url: "ws://127.0.0.1:\(Self.webSocketPort)/mqtt" }
            offline: { policy: buffer, maxMessages: 100 }
            devices:
              - name: flood
                topic: ws/flood
                publish: 500/s
                payload: { fields: { n: { counter: 0 }, pad: { constant: "\(String(repeating: "p", count: 1000))" } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, ["--duration", "8s"], report: true, namespace: namespace)
        var peak = 0
        var atTwo = 0
        let started = TestClock.now()
        while devsim.isRunning, TestClock.now() - started < 40 {
            let rss = Self.residentKilobytes(devsim.pid) ?? 0
            peak = max(peak, rss)
            if TestClock.now() - started < 2.5 { atTwo = max(atTwo, rss) }
            TestClock.sleep(0.25)
        }
        #expect(devsim.waitUntilExit(timeout: 30) == 0, "\(devsim.stderr)")
        let figures = try RunFiles.report(file + ".json")
        #expect(RunFiles.accountsForEveryTick(figures), "\(figures)")
        #expect((figures["droppedBuffer"] as? Int ?? 0) > 0, "the queue's cap held: \(figures)")
        // 4 MB of payload were scheduled beyond what the link carried; held in memory, they
        // would have grown devsim by as much.
        #expect(peak - atTwo < 2048, "RSS grew \(peak - atTwo) KB after the first seconds: \(figures)")
        #expect((figures["connectionErrors"] as? [String: Int] ?? [:]).isEmpty, "the connection stayed up: \(figures)")
        withExtendedLifetime(broker) {}
    }

    private static func residentKilobytes(_ pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
    }

    /// Item 4: keepalive and the silence watch. A network that drops the WebSocket's packets
    /// without a reset: libmosquitto hears nothing through the bridge, so the watch gives the
    /// connection up after 1.5 × keepalive, and it comes back once the network does.
    @Test func aSilentBrokerBehindTheBridgeIsGivenUpAndReconnected() throws {
        let namespace = try NetworkNamespace()
        let broker = try broker(namespace)
        let file = try RunFiles.scenario(
            "ws-silent.yaml",
            """
            broker:
              url: "ws://127.0.0.1:\(Self.webSocketPort)/mqtt"
              keepalive: 5s
              reconnect: { initial: 200ms, max: 1s }
            """ + "\n" + Self.qos1)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, ["--connack-timeout", "1500ms"], report: true, namespace: namespace)
        #expect(
            TestClock.wait(timeout: 10, interval: 0.02) { devsim.stderr.components(separatedBy: " connected\n").count > 3 },
            "\(devsim.stderr)")
        let port = String(Self.webSocketPort)
        try namespace.run("iptables", "-I", "INPUT", "-p", "tcp", "--dport", port, "-j", "DROP")
        try namespace.run("iptables", "-I", "INPUT", "-p", "tcp", "--sport", port, "-j", "DROP")
        let lost = "connection lost: nothing from the broker for 7.5s (1.5 × keepalive)"
        #expect(TestClock.wait(timeout: 12, interval: 0.05) { devsim.stderr.contains(lost) }, "\(devsim.stderr)")
        try namespace.run("iptables", "-D", "INPUT", "-p", "tcp", "--dport", port, "-j", "DROP")
        try namespace.run("iptables", "-D", "INPUT", "-p", "tcp", "--sport", port, "-j", "DROP")
        #expect(
            TestClock.wait(timeout: 10, interval: 0.05) { devsim.stderr.components(separatedBy: " reconnected\n").count > 3 },
            "every connection came back: \(devsim.stderr)")
        #expect(devsim.terminate(grace: 10) == 0, "\(devsim.stderr)")
        #expect(RunFiles.accountsForEveryTick(try RunFiles.report(file + ".json")))
        withExtendedLifetime(broker) {}
    }
}
