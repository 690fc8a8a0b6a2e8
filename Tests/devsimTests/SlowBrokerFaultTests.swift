import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 6, fault 4: a broker behind a link that carries a trickle (`tc tbf`, 256 kbit/s, in a
/// network namespace of the test's own) while twenty devices ask for more than a hundred times
/// that: QoS 1 devices bounded by their in-flight window, QoS 0 ones by nothing but devsim.
@Suite(.serialized, .tags(.integration, .root), .notUnitOnly) struct SlowBrokerFaultTests {
    /// A broker in a namespace whose loopback carries 256 kbit/s.
    private func throttledBroker(socketBuffer: Int = 65536) throws -> (NetworkNamespace, MosquittoBroker) {
        let namespace = try NetworkNamespace()
        let broker = try MosquittoBroker(namespace: namespace)
        // An Ethernet MTU: tbf drops whole any packet bigger than its bucket, and loopback's 64 KB
        // segments would stall the connections instead of slowing them.
        try namespace.run("ip", "link", "set", "lo", "mtu", "1500")
        try namespace.run("tc", "qdisc", "add", "dev", "lo", "root", "tbf", "rate", "256kbit", "burst", "4kb", "latency", "500ms")
        // Small socket buffers, so the backlog reaches devsim in a second instead of filling
        // megabytes of kernel memory first.
        try namespace.run(
            "sh", "-c",
            "echo 4096 16384 \(socketBuffer) > /proc/sys/net/ipv4/tcp_wmem && echo 4096 16384 \(socketBuffer) > /proc/sys/net/ipv4/tcp_rmem"
        )
        return (namespace, broker)
    }

    @Test func memoryStaysBoundedAndLatenessShowsTheWait() throws {
        let (namespace, broker) = try throttledBroker()
        let padding = String(repeating: "x", count: 200)
        // 4 MB/s of QoS 0: held by libmosquitto, it would grow devsim by tens of megabytes.
        let bigPadding = String(repeating: "y", count: 2000)
        let file = try RunFiles.scenario(
            "slow.yaml",
            """
            offline: { policy: buffer, maxMessages: 100 }
            devices:
              - name: acked
                count: 10
                topic: "slow/acked/{index}"
                publish: 20/s
                qos: 1
                payload:
                  fields:
                    n: { counter: 0 }
                    pad: { constant: "\(padding)" }
              - name: fire-and-forget
                count: 10
                topic: "slow/qos0/{index}"
                publish: 200/s
                qos: 0
                payload:
                  fields:
                    n: { counter: 0 }
                    pad: { constant: "\(bigPadding)" }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let reportPath = file + ".json"

        let devsim = try DevsimRun.start(file, port: broker.port, ["--duration", "12s"], report: true, namespace: namespace)
        var samples: [(seconds: Double, kilobytes: Int)] = []
        let started = TestClock.now()
        while devsim.isRunning, TestClock.now() - started < 60 {
            if let rss = Self.residentKilobytes(devsim.pid) { samples.append((TestClock.now() - started, rss)) }
            TestClock.sleep(0.25)
        }
        #expect(devsim.waitUntilExit(timeout: 30) == 0, "nothing crashes, and the run ends within its drain bound\n\(devsim.stderr)")

        let report = try RunFiles.report(reportPath)
        let figure = { (name: String) in report[name] as? Int ?? -1 }
        #expect(RunFiles.accountsForEveryTick(report), "every tick in exactly one place: \(report)")
        #expect(figure("droppedBuffer") > 0, "the queues filled and their caps held: \(report)")
        #expect(figure("buffered") <= 20 * 100)
        #expect(figure("inFlight") <= 10 * 16, "the in-flight window held")
        #expect(figure("published") == figure("acknowledged") + figure("inFlight") + Self.qos0Published(report))
        // Slow is not gone: a connection once up stays up. (Opening one through the saturated
        // link may fail and be retried.)
        #expect(figure("reconnects") == 0)
        let errors = report["connectionErrors"] as? [String: Int] ?? [:]
        #expect(!errors.keys.contains { $0.hasPrefix("connection lost") }, "\(errors)")

        // Honest lateness: messages that waited in the queue were published seconds late.
        let lateness = try #require(report["lateness"] as? [String: Any])
        #expect((lateness["p99"] as? Double ?? 0) >= 1000, "\(lateness)")
        #expect(figure("late") > 0)

        // Memory: what it took once the queues were full is what it takes at the end.
        let settled = samples.filter { $0.seconds >= 4 && $0.seconds <= 12 }.map(\.kilobytes)
        let first = try #require(settled.first), peak = try #require(settled.max())
        #expect(peak - first < 8 * 1024, "RSS grew from \(first) KB to \(peak) KB under a slow broker")
    }

    private static func residentKilobytes(_ pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
    }

    /// QoS 0 messages are published and never acknowledged.
    private static func qos0Published(_ report: [String: Any]) -> Int {
        let groups = report["groups"] as? [[String: Any]] ?? []
        return groups.first { $0["name"] as? String == "fire-and-forget" }?["published"] as? Int ?? -1
    }

    /// A socket kept backed up by the trickle drains by bits, and the kernel reports it writable
    /// only once a third of its buffer is free. A keepalive PINGREQ written in between takes
    /// libmosquitto's backlog with it: the connection must still hear that it may send again.
    @Test func qos0KeepsFlowingThroughABackedUpSocketAcrossKeepalives() throws {
        let (namespace, broker) = try throttledBroker(socketBuffer: 16384)
        let file = try RunFiles.scenario(
            "trickle.yaml",
            """
            broker: { keepalive: 10s }
            devices:
              - name: fire-and-forget
                topic: "slow/trickle"
                publish: 200/s
                payload:
                  fields:
                    n: { counter: 0 }
                    pad: { constant: "\(String(repeating: "z", count: 2000))" }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(
            file, port: broker.port, ["--duration", "30s", "--log-format", "json"], statsInterval: "1s", namespace: namespace)
        #expect(devsim.waitUntilExit(timeout: 60) == 0, "\(devsim.stderr)")
        // The status lines' published counts, one a second: they must keep rising to the end,
        // across the keepalives of the run. (Before the fix they froze for good at the first
        // PINGREQ that drained the socket, about ten seconds in.)
        let published = devsim.stderr.split(separator: "\n").compactMap { line -> Int? in
            guard let range = line.range(of: "published ") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
        #expect(published.count >= 25, "\(devsim.stderr)")
        let atFifteen = published.count > 15 ? published[14] : 0
        let atEnd = published.dropLast().last ?? 0
        #expect(atEnd > atFifteen + 50, "publishing went on after the first keepalives: \(published)")
        #expect(!devsim.stderr.contains("connection lost"), "\(devsim.stderr)")
    }
}
