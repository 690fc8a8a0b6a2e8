import Foundation
import Testing
import TestSupport

/// Issue 15, item 3: subscriber groups against a real mosquitto. At QoS 1 end to end, with the
/// devices' drain and the subscribers' settle, the broker delivers every message it
/// acknowledged: fan-out counts are what was published times the members, fan-in counts what
/// was published once, split over a shared group's members with nothing received twice.
@Suite(.tags(.integration), .notUnitOnly) struct SubscriberRunTests {
    /// Runs `scenario` for `duration` against a fresh mosquitto; returns the report and stderr.
    private func run(_ scenario: String, duration: String = "2s", extra: [String] = []) throws -> (report: [String: Any], log: String) {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario("subscribers.yaml", scenario)
        defer { RunFiles.removeFolder(of: file) }
        let result = try DevsimRun(file, port: broker.port, ["--duration", duration] + extra, report: true, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        return (try result.report(), result.stderr)
    }

    private static func devices(count: Int, rate: String) -> String {
        ScenarioText(
            group: "sensor", count: count, topic: "fleet/{index}/telemetry", publish: rate, qos: 1, style: "flat",
            fields: "seq: { counter: 0 }, ts: { timestamp: us }"
        ).text + "\n"
    }

    private static func group(_ report: [String: Any], _ name: String) throws -> [String: Any] {
        let groups = try #require(report["subscribers"] as? [[String: Any]], "\(report.keys.sorted())")
        return try #require(groups.first { $0["name"] as? String == name }, "\(groups)")
    }

    @Test func fanOutDeliversEveryMessageToEveryMember() throws {
        let (report, log) = try run(
            Self.devices(count: 1, rate: "20/s") + """
                subscribers:
                  - name: dashboards
                    count: 20
                    topics: ["fleet/+/telemetry"]
                    qos: 1
                """,
            extra: [
                "--expect", "subscribers[dashboards].gaps==0", "--expect", "subscribers[dashboards].connectionsReceiving==20",
                "--expect", "subscribers[dashboards].p99<10s",
            ])
        let published = try #require(report["published"] as? Int)
        #expect(published > 0 && report["acknowledged"] as? Int == published, "\(report)")
        let dashboards = try Self.group(report, "dashboards")
        #expect(dashboards["connections"] as? Int == 20 && dashboards["subscribed"] as? Int == 20, "\(dashboards)")
        #expect(dashboards["received"] as? Int == published * 20, "published \(published): \(dashboards)")
        #expect(dashboards["connectionsReceiving"] as? Int == 20 && dashboards["shared"] as? Bool == false, "\(dashboards)")
        #expect(
            dashboards["duplicates"] as? Int == 0 && dashboards["gaps"] as? Int == 0 && dashboards["outOfOrder"] as? Int == 0,
            "\(dashboards)")
        let latency = try #require(dashboards["latency"] as? [String: Any], "\(dashboards)")
        #expect(latency["count"] as? Int == published * 20 && latency["p99"] is Double, "every payload has its timestamp: \(latency)")
        #expect((dashboards["ratePerSecond"] as? Double ?? 0) > 0, "\(dashboards)")
        // What the subscribers received is theirs alone: the devices' figures are untouched.
        let groups = try #require(report["groups"] as? [[String: Any]])
        #expect(groups.count == 1 && groups[0]["published"] as? Int == published, "\(groups)")
        #expect(log.contains("subscriber group 'dashboards': 20/20 subscribed, received \(published * 20) "), "\(log)")
        // The timeline has what they received, interval by interval, the settle's in the last.
        let points = try #require((report["timeline"] as? [String: Any])?["points"] as? [[String: Any]])
        #expect(points.reduce(0) { $0 + ($1["received"] as? Int ?? 0) } == published * 20, "\(points)")
        let verdicts = try #require(report["expectations"] as? [[String: Any]])
        #expect(verdicts.map { $0["passed"] as? Bool } == [true, true, true], "\(verdicts)")
        #expect(verdicts[1]["actual"] as? Double == 20, "\(verdicts)")
    }

    @Test func aSharedGroupSplitsTheStreamWithNothingReceivedTwice() throws {
        let (report, log) = try run(
            Self.devices(count: 20, rate: "10/s") + """
                subscribers:
                  - name: workers
                    count: 4
                    topics: ["$share/workers/fleet/#"]
                    qos: 1
                """)
        let published = try #require(report["published"] as? Int)
        #expect(published > 0 && report["acknowledged"] as? Int == published, "\(report)")
        let workers = try Self.group(report, "workers")
        #expect(workers["shared"] as? Bool == true && workers["subscribed"] as? Int == 4, "\(workers)")
        #expect(workers["received"] as? Int == published, "published \(published): \(workers)")
        #expect(workers["duplicates"] as? Int == 0 && workers["gaps"] as? Int == 0, "\(workers)")
        // Its members read on one loop, in the order the loop finds them ready: no figure of the broker's.
        #expect(workers["outOfOrder"] == nil, "\(workers)")
        // mosquitto deals a shared subscription's messages out in turn.
        #expect((workers["connectionsReceiving"] as? Int ?? 0) > 1, "\(workers)")
        #expect((workers["latency"] as? [String: Any])?["count"] as? Int == published, "\(workers)")
        #expect(log.contains("subscriber group 'workers' (shared): 4/4 subscribed"), "\(log)")
    }

    @Test func aSubscriberGroupTheRunDoesNotHaveIsAUsageError() throws {
        let file = try RunFiles.scenario("expect.yaml", Self.devices(count: 1, rate: "10/s") + "subscribers: [{ name: a, topics: x }]\n")
        defer { RunFiles.removeFolder(of: file) }
        // Port 1: nothing listens, and nothing must try.
        let run = try DevsimRun(file, port: 1, ["--expect", "subscribers[b].received>0"], statsInterval: nil)
        #expect(run.status == 2)
        #expect(run.stderr.contains("subscribers[b].received>0: the run has no subscriber group 'b' (it has 'a')"), "\(run.stderr)")
    }

    /// A scenario of subscribers alone listens to what others publish: here `mosquitto_pub`.
    @Test func subscribersAloneCountWhatOthersPublish() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario("listen.yaml", "name: listen\nsubscribers: [{ name: screens, count: 3, topics: \"outside/#\" }]\n")
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port, ["--duration", "30s"], report: true)
        #expect(TestClock.wait(timeout: 15, interval: 0.02) { devsim.stderr.contains("subscribers: 3 connections of 1 group subscribed") })
        for index in 1...4 {
            let sent = try MosquittoPub.run(port: broker.port, ["-t", "outside/\(index)", "-m", "{}", "-q", "1"], timeout: 10)
            #expect(sent.status == 0, "\(sent.stderr)")
        }
        // What mosquitto acknowledged is on its way to the subscribers, whose settle at the end
        // waits for it.
        #expect(devsim.terminate(grace: 15) == 0, "\(devsim.stderr)")
        let report = try RunFiles.report(file + ".json")
        let screens = try Self.group(report, "screens")
        #expect(screens["received"] as? Int == 12 && screens["connectionsReceiving"] as? Int == 3, "\(screens)")
        #expect(report["connections"] as? Int == 0 && report["outcome"] as? String == "stopped", "\(report)")
    }

    @Test func aReportWithoutSubscribersHasNoSubscribersSection() throws {
        let (report, _) = try run(Self.devices(count: 1, rate: "10/s"), duration: "1s")
        #expect(report["subscribers"] == nil, "\(report.keys.sorted())")
    }
}

/// Without a broker: `validate` counts the subscribers, a dry run names them.
@Suite struct SubscriberCommandTests {
    @Test func validateCountsThemAndADryRunNamesThem() throws {
        let file = try RunFiles.scenario(
            "s.yaml",
            RunFiles.oneDevice + """

                subscribers:
                  - name: dash
                    count: 3
                    topics: ["t", "u/#"]
                """)
        defer { RunFiles.removeFolder(of: file) }
        let validate = try DevsimProcess.runToCompletion(args: ["validate", file], timeout: 30)
        #expect(validate.stdout == "\(file): ok (1 device group, 1 device, 1 subscriber group, 3 subscribers)\n", "\(validate.stderr)")
        let dry = try DevsimProcess.runToCompletion(args: ["run", file, "--dry-run", "--messages", "2"], timeout: 30)
        #expect(dry.status == 0 && dry.stdout.split(separator: "\n").count == 2, "\(dry.stderr)")
        #expect(
            dry.stderr.contains("dry run: 1 subscriber group not run without a broker: 'dash' (3 connections on t, u/#)"), "\(dry.stderr)")
    }

    /// Subscribers alone load; what needs devices says so, and a file with neither is refused.
    @Test func subscribersAloneLoadAndWhatNeedsDevicesIsRefused() throws {
        let file = try RunFiles.scenario("alone.yaml", "subscribers: [{ name: dash, topics: \"t/#\" }]\n")
        defer { RunFiles.removeFolder(of: file) }
        let validate = try DevsimProcess.runToCompletion(args: ["validate", file], timeout: 30)
        #expect(validate.stdout == "\(file): ok (0 device groups, 0 devices, 1 subscriber group, 1 subscriber)\n", "\(validate.stderr)")
        for (arguments, error) in [
            (["--verify"], "--verify checks what the devices publish, and the scenarios have none (subscribers alone)"),
            (
                ["--find-capacity", "--slo", "p99<5ms"],
                "--find-capacity: the search steps up the devices' rate, and the scenarios have none"
            ),
            (["--messages", "10"], "--messages counts what the devices publish, and the scenarios have none (subscribers alone)"),
        ] {
            let run = try DevsimRun(file, port: 1, arguments, statsInterval: nil)
            #expect(run.status == 2 && run.stderr.contains(error), "\(run.stderr)")
        }
        let neither = try RunFiles.scenario("neither.yaml", "name: empty\n")
        defer { RunFiles.removeFolder(of: neither) }
        let refused = try DevsimProcess.runToCompletion(args: ["validate", neither], timeout: 30)
        #expect(refused.status == 2 && refused.stderr.contains("missing 'devices' in the scenario"), "\(refused.stderr)")
    }
}
