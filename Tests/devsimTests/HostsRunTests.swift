import Foundation
import Glibc
import Report
import Simulator
import Testing
import TestSupport

/// Issue 29, part C, against real mosquittos: connections from several source addresses
/// (`broker.bind`, `--bind`), a fleet spread over two brokers (`broker.hosts`) that fails over
/// when one dies, and the refusals before anything connects.
@Suite(.serialized) struct HostsRunTests {
    private static func scenario(_ name: String, broker: String, count: Int = 4, qos: Int = 0) throws -> String {
        try RunFiles.scenario(
            name,
            """
            name: \(name.prefix { $0 != "." })
            broker: { \(broker) }
            devices:
              - name: meter
                count: \(count)
                topic: "m/{id}"
                publish: 20/s
                qos: \(qos)
                payload: { fields: { seq: { counter: 0 } } }
            """)
    }

    /// mosquitto listens on 127.0.0.1, which takes connections from any loopback address.
    @Test func connectionsComeFromEachBoundAddress() throws {
        let broker = try MosquittoBroker()
        let file = try Self.scenario("bind.yaml", broker: "host: 127.0.0.1, port: \(broker.port), bind: [127.0.0.2, 127.0.0.3]")
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, ["--messages", "40"], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        // Connection i from address i mod 2, whatever reconnects there were.
        #expect(
            Self.sources(in: broker.log) == [
                "meter-1": ["127.0.0.2"], "meter-2": ["127.0.0.3"], "meter-3": ["127.0.0.2"], "meter-4": ["127.0.0.3"],
            ], "\(broker.log)")
        // The flag's list over the file's.
        let flagged = try DevsimRun(file, ["--messages", "40", "--bind", "127.0.0.4"], timeout: 60)
        #expect(flagged.status == 0, "\(flagged.stderr)")
        #expect(broker.log.components(separatedBy: "New client connected from 127.0.0.4:").count - 1 >= 4, "\(broker.log)")
    }

    /// Each client id and the source addresses mosquitto saw it connect from ("New client
    /// connected from 127.0.0.2:40000 as meter-1 (…)"; `::ffff:` before an IPv4 address on a
    /// WebSocket listener).
    static func sources(in log: String) -> [String: Set<String>] {
        var sources: [String: Set<String>] = [:]
        for line in log.split(separator: "\n") {
            guard let from = line.range(of: "New client connected from "), let asWord = line.range(of: " as ") else { continue }
            var address = String(line[from.upperBound..<asWord.lowerBound])
            if let colon = address.lastIndex(of: ":") { address = String(address[..<colon]) }
            if address.hasPrefix("::ffff:") { address.removeFirst(7) }
            let client = line[asWord.upperBound...].prefix { $0 != " " }
            sources[String(client), default: []].insert(address)
        }
        return sources
    }

    @Test func addressesNotOfThisMachineAreRefusedBeforeConnecting() throws {
        // 192.0.2.0/24 is for documentation: no machine has it.
        let file = try Self.scenario("bad-bind.yaml", broker: "host: 127.0.0.1, port: 1, bind: [127.0.0.2, 192.0.2.7]")
        defer { RunFiles.removeFolder(of: file) }
        let fromFile = try DevsimProcess.runToCompletion(args: ["run", file, "--duration", "1s"], timeout: 60)
        #expect(fromFile.status == 2)
        #expect(
            fromFile.stderr.contains(
                "\(file):2:55: broker.bind: cannot bind to 192.0.2.7: it is not an address of this machine; give addresses this machine has"
            ),
            "\(fromFile.stderr)")
        let fromFlag = try DevsimProcess.runToCompletion(args: ["run", file, "--duration", "1s", "--bind", "192.0.2.8"], timeout: 60)
        #expect(fromFlag.status == 2)
        #expect(fromFlag.stderr.contains("--bind: cannot bind to 192.0.2.8: it is not an address of this machine"), "\(fromFlag.stderr)")
        let variable = try DevsimProcess.runToCompletion(
            args: ["run", file, "--duration", "1s"], env: ["DEVSIM_BIND": "127.0.0.2,nope"], timeout: 60)
        #expect(variable.status == 2)
        #expect(variable.stderr.contains("DEVSIM_BIND: 'nope' is not an IP address"), "\(variable.stderr)")
    }

    /// Issue 38, item 1: where the kernel binds any address (`net.ipv4.ip_nonlocal_bind`, set on
    /// machines with a floating address), bind(2) takes 10.9.9.9 and every connect from it failed
    /// after, half the fleet never up and exit 0. The machine's interfaces say it is none of its.
    @Test(.tags(.root)) func anAddressNoInterfaceHasIsRefusedWhereTheKernelBindsAnyAddress() throws {
        let namespace = try NetworkNamespace()
        try namespace.run("sysctl", "-q", "-w", "net.ipv4.ip_nonlocal_bind=1")
        let file = try Self.scenario("nonlocal.yaml", broker: "host: 127.0.0.1, port: 1, bind: [127.0.0.2, 10.9.9.9]")
        defer { RunFiles.removeFolder(of: file) }
        func run(_ arguments: [String]) throws -> (status: Int32?, stderr: String) {
            let result = try DevsimRun(file, ["--duration", "1s"] + arguments, statsInterval: nil, namespace: namespace, timeout: 60)
            return (result.status, result.stderr)
        }
        let because =
            "10.9.9.9 is not an address of this machine: no interface has it, and the kernel binds it all the same "
            + "(net.ipv4.ip_nonlocal_bind is on), so every connection from it would fail"
        let fromFile = try run([])
        #expect(fromFile.status == 2)
        #expect(fromFile.stderr.contains("\(file):2:55: broker.bind: " + because), "\(fromFile.stderr)")
        let fromFlag = try run(["--bind", "127.0.0.2,10.9.9.9"])
        #expect(fromFlag.status == 2)
        #expect(fromFlag.stderr.contains("--bind: " + because), "\(fromFlag.stderr)")
        #expect(try run(["--bind", "127.0.0.2", "--connect-timeout", "1s"]).status == 3, "a loopback address is this machine's")
    }

    /// One more connection than the machine's ephemeral ports to one broker address: refused at
    /// once, with the arithmetic, and nothing connects (nobody listens on port 1 anyway).
    @Test func aFleetBeyondItsPortsIsRefusedWithTheArithmetic() throws {
        let range = PortLimit.Range.current
        let file = try Self.scenario("ports.yaml", broker: "host: 127.0.0.1, port: 1", count: range.count + 1)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimProcess.runToCompletion(args: ["run", file, "--duration", "1s"], timeout: 120)
        #expect(result.status == 1)
        let expected =
            "\(PortLimit.grouped(range.count + 1)) connections to 127.0.0.1:1 need 2 source addresses at \(PortLimit.grouped(range.count)) ports each"
        #expect(result.stderr.contains(expected), "\(result.stderr)")
        #expect(!result.stderr.contains("cannot connect"), "refused before connecting")
    }

    /// Two mosquittos as one cluster's nodes, one killed mid-run: its devices go on to the other
    /// and publish there, and the report adds up per host.
    @Test func devicesOfAKilledHostFailOverAndTheHostsAddUp() throws {
        let first = try MosquittoBroker()
        let second = try MosquittoBroker()
        let file = try RunFiles.scenario(
            "cluster.yaml",
            """
            name: cluster
            broker:
              hosts: ["127.0.0.1:\(first.port)", "mqtt://127.0.0.1:\(second.port)"]
              spread: roundRobin
              reconnect: { initial: 100ms, max: 500ms }
            devices:
              - name: meter
                count: 6
                topic: "m/{id}"
                publish: 20/s
                qos: 1
                payload: { fields: { seq: { counter: 0 } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let run = try ServedRun(file: file, brokerPort: 0) { settings in
            settings.host = nil
            settings.port = nil
        }
        let up = { (host: UInt16) in run.fleet.live().result.hosts.first { $0.host == "127.0.0.1:\(host)" } }
        #expect(TestClock.wait(timeout: 30) { up(first.port)?.connectionsUp == 3 && up(second.port)?.connectionsUp == 3 }, "\(run.log)")
        #expect(TestClock.wait(timeout: 30) { (up(second.port)?.published ?? 0) > 0 })
        second.kill()
        // Each of the three goes on to the first host, which takes them all.
        #expect(TestClock.wait(timeout: 60) { up(first.port)?.connectionsUp == 6 }, "\(run.log)")
        let killed = try #require(up(second.port))
        let before = try #require(up(first.port)).published
        #expect(TestClock.wait(timeout: 30) { (up(first.port)?.published ?? 0) > before + 60 }, "they go on publishing")
        #expect(up(second.port)?.published == killed.published, "the killed host's figures stop growing")
        let result = try #require(try run.stop(timeout: 30))
        let hosts = result.hosts
        try #require(hosts.count == 2)
        #expect(hosts.map(\.host) == ["127.0.0.1:\(first.port)", "127.0.0.1:\(second.port)"])
        #expect(hosts.reduce(0) { $0 + $1.published } == result.totals[.published])
        #expect(hosts.reduce(0) { $0 + $1.acknowledged } == result.totals[.acknowledged])
        #expect(hosts.reduce(0) { $0 + $1.failed } == result.totals[.failed])
        #expect(hosts.reduce(0) { $0 + $1.connectionsUp } == result.connectionsUpAtEnd)
        let (kept, lost) = (hosts[0], hosts[1])
        #expect(lost.connects == 3 && lost.connectionLosses == 3 && lost.failoversFrom == 3 && lost.connectionsUp == 0, "\(lost)")
        #expect(kept.connects == 6 && kept.connectionLosses == 0 && kept.failoversTo == 3 && kept.connectionsUp == 6, "\(kept)")
        #expect(lost.published == killed.published)
        // The report's JSON and /metrics say the same.
        let report = try run.report(result)
        let listed = try #require(report["hosts"] as? [[String: Any]])
        #expect(listed.compactMap { $0["published"] as? Int } == hosts.map(\.published))
    }

    /// TLS checks each host's certificate against that host's name: a connection whose first
    /// host's name is not on the certificate goes on to the next host, whose name is, and is
    /// taken there, as its own TLS checks the new name.
    /// `--verify` subscribes on one node: it says so at the start. Over brokers that share
    /// nothing (these two), what went to the other never arrives, and is `unwatched`, not lost
    /// (issue 38, item 16: it was counted as lost).
    @Test func theVerifierSaysItWatchesOneNode() throws {
        let first = try MosquittoBroker()
        let second = try MosquittoBroker()
        let file = try RunFiles.scenario(
            "verify-cluster.yaml",
            """
            broker:
              hosts: ["127.0.0.1:\(first.port)", "127.0.0.1:\(second.port)"]
              spread: roundRobin
            devices:
              - name: meter
                count: 4
                topic: "m/{id}"
                publish: 10/s
                qos: 1
                payload: { fields: { seq: { counter: 0 } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let report = file + ".json"
        let result = try DevsimRun(file, ["--duration", "2s", "--verify", "--report", report], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "verify: the subscriber watches one node of broker.hosts at a time (127.0.0.1:\(first.port), 127.0.0.1:\(second.port))"),
            "\(result.stderr)")
        let figures = try RunFiles.report(report)
        let verify = try #require(figures["verify"] as? [String: Any], "\(figures)")
        let received = verify["received"] as? Int ?? -1, unwatched = verify["unwatched"] as? Int ?? -1
        #expect(verify["lost"] as? Int == 0 && received > 0 && unwatched > 0, "\(verify)")
        let missed = verify["missedWhileAway"] as? Int ?? -1, unconfirmed = verify["unconfirmed"] as? Int ?? -1
        #expect(received + unwatched + missed + unconfirmed == figures["published"] as? Int, "\(verify)")
    }

    @Test func eachHostsCertificateIsCheckedAgainstItsOwnName() throws {
        let certificates = try TestCertificates(host: "127.0.0.1")
        defer { certificates.remove() }
        let named = try MosquittoBroker(extraConfig: certificates.listenerConfig)
        let wrong = try MosquittoBroker(extraConfig: certificates.listenerConfig)
        let file = try RunFiles.scenario(
            "tls-cluster.yaml",
            """
            name: tls-cluster
            broker:
              hosts: ["mqtts://localhost:\(wrong.port)", "mqtts://127.0.0.1:\(named.port)"]
              spread: roundRobin
              tls: { ca: \(certificates.ca) }
              reconnect: { initial: 100ms, max: 500ms }
            devices:
              - name: meter
                count: 2
                topic: "m/{id}"
                publish: 5/s
                payload: { fields: { seq: { counter: 0 } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let run = try ServedRun(file: file, brokerPort: 0) { settings in
            settings.host = nil
            settings.port = nil
        }
        let host = { (name: String) in run.fleet.live().result.hosts.first { $0.host == name } }
        #expect(TestClock.wait(timeout: 60) { host("127.0.0.1:\(named.port)")?.connectionsUp == 2 }, "\(run.log)")
        let result = try #require(try run.stop(timeout: 30))
        let refused = try #require(result.hosts.first { $0.host == "localhost:\(wrong.port)" })
        #expect(refused.connects == 0 && refused.failoversFrom >= 1, "\(refused)")
        #expect(result.hosts.first { $0.host == "127.0.0.1:\(named.port)" }?.failoversTo ?? 0 >= 1)
    }
}
