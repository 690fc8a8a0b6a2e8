import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 13, items 4 and 5: a running fleet changed by a reload of its files (SIGHUP) and by
/// `scale`, checked connection by connection in the broker's log and message by message by a
/// subscriber.
@Suite(.tags(.integration), .notUnitOnly) struct ReloadTests {
    private static func group(_ name: String, count: Int = 1, publish: String = "10/s", field: String = "seq") -> String {
        """
          - name: \(name)
            count: \(count)
            topic: "rl/\(name)/{index}"
            publish: \(publish)
            availability: { topic: "rl-status/{id}" }
            payload: { fields: { \(field): { counter: 0 } } }

        """
    }

    /// How often the broker saw client `id` connect (`New client connected … as ID (`).
    private static func connects(_ log: String, _ id: String) -> Int {
        log.components(separatedBy: " as \(id) (").count - 1
    }

    @Test func sighupAppliesTheDifferenceConnectionByConnection() throws {
        let broker = try MosquittoBroker()
        let subscriber = try Subscriber(port: broker.port, topic: "rl/#")
        let file = try RunFiles.scenario(
            "reload.yaml", "devices:\n" + Self.group("keep", count: 2) + Self.group("drop") + Self.group("change"))
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port, report: true)
        #expect(
            TestClock.wait(timeout: 10, interval: 0.05) { Set(subscriber.messages.map(\.topic)).count == 4 }, "\(devsim.stderr)")
        // keep: the same, written lower down; drop: gone; change: a new field; fresh: new.
        try ("# edited\ndevices:\n" + Self.group("change", field: "n") + Self.group("keep", count: 2) + Self.group("fresh"))
            .write(toFile: file, atomically: true, encoding: .utf8)
        devsim.sendSignal(SIGHUP)
        #expect(
            devsim.waitForOutput(
                containing: "reloaded: added fresh; removed drop; changed change; unchanged keep", inStderr: true, timeout: 10),
            "\(devsim.stderr)")
        #expect(TestClock.wait(timeout: 5, interval: 0.05) { subscriber.messages.contains { $0.topic == "rl/fresh/1" } })
        #expect(
            TestClock.wait(timeout: 5, interval: 0.05) {
                subscriber.messages.contains { $0.topic == "rl/change/1" && $0.payloadText.contains("\"n\":") }
            }, "the changed group publishes what its file says now")
        TestClock.sleep(0.5)  // what was on its way arrives
        let dropped = subscriber.messages.count { $0.topic == "rl/drop/1" }
        let kept = subscriber.messages.count { $0.topic == "rl/keep/1" }
        TestClock.sleep(1)
        #expect(subscriber.messages.count { $0.topic == "rl/drop/1" } == dropped, "a removed group publishes nothing")
        #expect(subscriber.messages.count { $0.topic == "rl/keep/1" } >= kept + 5, "an unchanged group goes on")
        // A second SIGHUP with nothing changed touches nothing.
        devsim.sendSignal(SIGHUP)
        #expect(
            devsim.waitForOutput(containing: "reloaded: unchanged change, keep, fresh", inStderr: true, timeout: 10), "\(devsim.stderr)")
        #expect(devsim.terminate(grace: 15) == 0, "\(devsim.stderr)")

        let log = broker.log
        #expect(Self.connects(log, "keep-1") == 1 && Self.connects(log, "keep-2") == 1, "unchanged: never reconnected\n\(log)")
        #expect(Self.connects(log, "change-1") == 2, "changed: restarted once\n\(log)")
        #expect(Self.connects(log, "drop-1") == 1 && Self.connects(log, "fresh-1") == 1, "\(log)")
        #expect(!log.contains("Client change-1 already connected"), "the successor waited for its predecessor to leave\n\(log)")
        let statuses = try DevsimProcess.runToCompletion(
            executable: "/usr/bin/mosquitto_sub",
            args: ["-h", "127.0.0.1", "-p", String(broker.port), "-t", "rl-status/drop-1", "-C", "1", "-W", "3", "-v"], timeout: 10)
        #expect(statuses.stdout == "rl-status/drop-1 offline\n", "a removed device says it has gone: \(statuses.stdout)")

        let report = try RunFiles.report(file + ".json")
        #expect(RunFiles.accountsForEveryTick(report), "every tick counted once, removed groups' too: \(report)")
        let groups = report["groups"] as? [[String: Any]] ?? []
        #expect(groups.compactMap { $0["name"] as? String } == ["keep", "drop", "change", "fresh"], "counters carry over")
        for group in groups { #expect(group["reconnects"] as? Int == 0, "no reload is a lost connection: \(group)") }
        let reloads = report["reloads"] as? [[String: Any]] ?? []
        #expect(reloads.count == 2, "\(reloads)")
        #expect(reloads.first?["added"] as? [String] == ["fresh"] && reloads.first?["removed"] as? [String] == ["drop"], "\(reloads)")
        #expect(reloads.first?["changed"] as? [String] == ["change"] && reloads.first?["unchanged"] as? [String] == ["keep"])
        #expect(report["connections"] as? Int == 4, "keep's two, change and fresh: \(report)")
    }

    /// Issue 24, item 8: a group one reload removes and the next brings back is one group again,
    /// its figures counting on, in the scrape (Prometheus refuses one that repeats a series),
    /// the status and the report.
    @Test func aGroupBroughtBackIsOneGroup() throws {
        let broker = try MosquittoBroker()
        let both = "devices:\n" + Self.group("alpha") + Self.group("beta")
        let file = try RunFiles.scenario("back.yaml", both)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port, ["--http", "0"], report: true)
        let port = try #require(ServiceTests.servedPort(devsim), "\(devsim.stderr)")
        let scheduled = { (text: String) in ServiceTests.value(text, "devsim_scheduled_total{group=\"beta\"}") ?? 0 }
        let scrape = { try HTTPGet.request(port: port, path: "/metrics").body }
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { (try? scheduled(scrape())) ?? 0 > 0 }, "\(devsim.stderr)")
        try ("devices:\n" + Self.group("alpha")).write(toFile: file, atomically: true, encoding: .utf8)
        devsim.sendSignal(SIGHUP)
        #expect(devsim.waitForOutput(containing: "reloaded: removed beta; unchanged alpha", inStderr: true, timeout: 10))
        let removed = scheduled(try scrape())
        try both.write(toFile: file, atomically: true, encoding: .utf8)
        devsim.sendSignal(SIGHUP)
        #expect(devsim.waitForOutput(containing: "reloaded: added beta; unchanged alpha", inStderr: true, timeout: 10))
        #expect(
            TestClock.wait(timeout: 10, interval: 0.05) { (try? scheduled(scrape())) ?? 0 >= removed + 3 },
            "beta counts on from \(removed): \((try? scrape()) ?? "")")

        let metrics = try scrape()
        let checked = try ServiceTests.promtool(metrics)
        #expect(checked.status == 0, "promtool check metrics: \(checked.stdout)\(checked.stderr)\n\(metrics)")
        #expect(ServiceTests.repeatedSeries(metrics).isEmpty, "\(ServiceTests.repeatedSeries(metrics))")
        let status = try JSONSerialization.jsonObject(with: Data(try HTTPGet.request(port: port, path: "/api/status").body.utf8))
        let names = { (report: Any) in ((report as? [String: Any])?["groups"] as? [[String: Any]])?.compactMap { $0["name"] as? String } }
        #expect(names(status) == ["alpha", "beta"], "\(status)")
        #expect(devsim.terminate(grace: 15) == 0, "\(devsim.stderr)")
        let report = try RunFiles.report(file + ".json")
        #expect(names(report) == ["alpha", "beta"], "\(report)")
        #expect(RunFiles.accountsForEveryTick(report), "\(report)")
        #expect((report["reloads"] as? [[String: Any]])?.last?["added"] as? [String] == ["beta"], "\(report)")
    }

    @Test func aBrokenFileLeavesTheFleetAsItIs() throws {
        let broker = try MosquittoBroker()
        let subscriber = try Subscriber(port: broker.port, topic: "rl/#")
        let file = try RunFiles.scenario("broken.yaml", "devices:\n" + Self.group("keep"))
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port, ["--http", "0"], report: true)
        let port = try #require(ServiceTests.servedPort(devsim), "\(devsim.stderr)")
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { !subscriber.messages.isEmpty }, "\(devsim.stderr)")
        try ("devices:\n" + Self.group("keep", publish: "fast") + Self.group("other", count: 2)).write(
            toFile: file, atomically: true, encoding: .utf8)
        let events = try HTTPGet.stream(port: port, path: "/api/events", seconds: 2) { devsim.sendSignal(SIGHUP) }
        #expect(events.contains("event: reload\ndata: {"), "every reload is an event: \(events)")
        #expect(devsim.waitForOutput(containing: "the fleet runs on as it was", inStderr: true, timeout: 10), "\(devsim.stderr)")
        #expect(devsim.stderr.contains("\(file):5:14: "), "the error names the file, line and column: \(devsim.stderr)")
        let before = subscriber.messages.count
        TestClock.sleep(1)
        #expect(subscriber.messages.count >= before + 5, "the fleet goes on")
        #expect(!subscriber.messages.contains { $0.topic.hasPrefix("rl/other/") }, "nothing of the broken file runs")
        #expect(devsim.terminate(grace: 15) == 0, "\(devsim.stderr)")
        #expect(Self.connects(broker.log, "keep-1") == 1, "\(broker.log)")
        let report = try RunFiles.report(file + ".json")
        let reloads = report["reloads"] as? [[String: Any]] ?? []
        #expect((reloads.first?["error"] as? String)?.contains("the scenario files have 1 error") == true, "\(reloads)")
        #expect(RunFiles.accountsForEveryTick(report))
    }

    @Test func scaleOverHTTPAndTheControlTopic() throws {
        let broker = try MosquittoBroker()
        let subscriber = try Subscriber(port: broker.port, topic: "rl/#")
        let file = try RunFiles.scenario("scale.yaml", "control: { topic: devsim/control }\ndevices:\n" + Self.group("room", count: 2))
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port, ["--http", "0"], report: true)
        let port = try #require(ServiceTests.servedPort(devsim), "\(devsim.stderr)")
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { (try? HTTPGet.request(port: port, path: "/readyz").status) == 200 })
        let rooms = { Set(subscriber.messages.map(\.topic)) }
        let grown = try HTTPGet.request(port: port, path: "/api/groups/room/scale", method: "POST", body: "{\"count\": 4}")
        #expect(
            grown.status == 200 && grown.body == "{\"group\":\"room\",\"command\":\"scale\",\"connections\":4,\"count\":4}\n", "\(grown)")
        #expect(TestClock.wait(timeout: 5, interval: 0.05) { rooms().count == 4 }, "ids continue the template: \(rooms())")
        #expect(
            TestClock.wait(timeout: 5, interval: 0.05) {
                (try? HTTPGet.request(port: port, path: "/readyz").body.contains("4/4 connections up")) == true
            })
        for (body, error) in [
            ("{\"count\": 0}", "expected a whole number of devices from 1 to"), ("{}", "scale needs \"count\""),
        ] {
            let refused = try HTTPGet.request(port: port, path: "/api/groups/room/scale", method: "POST", body: body)
            #expect(refused.status == 400 && refused.body.contains(error), "\(refused)")
        }
        // Over MQTT, down to one: the last three leave.
        #expect(
            try MosquittoPub.run(
                port: broker.port, ["-t", "devsim/control", "-m", "{\"group\":\"room\",\"command\":\"scale\",\"count\":1}"], timeout: 10
            ).status == 0)
        #expect(devsim.waitForOutput(containing: "device group 'room' now has 1 device (1 connection)", inStderr: true, timeout: 5))
        TestClock.sleep(0.5)
        let gone = subscriber.messages.count { $0.topic != "rl/room/1" }
        let first = subscriber.messages.count { $0.topic == "rl/room/1" }
        TestClock.sleep(1)
        #expect(subscriber.messages.count { $0.topic != "rl/room/1" } == gone, "the devices taken away publish nothing")
        #expect(subscriber.messages.count { $0.topic == "rl/room/1" } >= first + 5, "the one kept goes on")
        let ready = try HTTPGet.request(port: port, path: "/readyz").body
        #expect(ready.contains("1/1 connections up"), "\(ready)")
        #expect(devsim.terminate(grace: 15) == 0, "\(devsim.stderr)")
        let log = broker.log
        for id in ["room-1", "room-2", "room-3", "room-4"] { #expect(Self.connects(log, id) == 1, "\(id)\n\(log)") }
        for id in ["room-2", "room-3", "room-4"] { #expect(log.contains("Client \(id) disconnected."), "left cleanly: \(id)\n\(log)") }
        let report = try RunFiles.report(file + ".json")
        #expect(RunFiles.accountsForEveryTick(report), "\(report)")
        #expect(report["reconnects"] as? Int == 0 && report["connections"] as? Int == 1, "\(report)")
    }
}
