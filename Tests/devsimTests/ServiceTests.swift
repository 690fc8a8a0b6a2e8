import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 13, items 1 to 3: `--http`, as Prometheus, Kubernetes' probes and a person see it.
@Suite(.tags(.integration), .notUnitOnly) struct ServiceTests {
    /// Five QoS 1 devices that tick once at their CONNACK and then not for ten seconds, so the
    /// figures a scrape sees mid-run are the run's final ones.
    private static let quiet = """
        devices:
          - name: meter
            count: 5
            topic: "svc/{index}"
            publish: 1/10s
            qos: 1
            # Each device's first tick at its CONNACK, so a short run has acknowledgements.
            jitter: none
            payload: { fields: { seq: { counter: 0 } } }
        """

    /// The port devsim logged it serves on (it was given port 0).
    static func servedPort(_ devsim: DevsimProcess) -> Int? {
        guard TestClock.wait(timeout: 10, interval: 0.02, until: { devsim.stderr.contains("serving http://127.0.0.1:") }) else {
            return nil
        }
        guard let range = devsim.stderr.firstRange(of: "serving http://127.0.0.1:") else { return nil }
        return Int(devsim.stderr[range.upperBound...].prefix { $0.isNumber })
    }

    @Test func metricsPassPromtoolAndMatchTheReport() throws {
        let broker = try MosquittoBroker()
        // Two subscribers, each of which has every device's one tick by the scrape.
        let withTimestamps = Self.quiet.replacingOccurrences(
            of: "{ seq: { counter: 0 } }", with: "{ seq: { counter: 0 }, ts: { timestamp: us } }")
        let file = try RunFiles.scenario(
            "svc.yaml", withTimestamps + "\nsubscribers: [{ name: screens, count: 2, topics: \"svc/#\", qos: 1 }]\n")
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port, ["--duration", "4s", "--http", "0"], report: true)
        let port = try #require(Self.servedPort(devsim), "\(devsim.stderr)")
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { (try? HTTPGet.request(port: port, path: "/readyz").status) == 200 })
        // The histograms are the loops' copies of the last second; the counters are live.
        TestClock.sleep(1.5)
        let metrics = try HTTPGet.request(port: port, path: "/metrics")
        #expect(metrics.status == 200 && metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        let status = try HTTPGet.request(port: port, path: "/api/status")
        #expect(status.status == 200 && status.body.contains("\"outcome\" : \"running\""), "\(status.body)")
        #expect(status.body.contains("\"received\" : 10,"), "the subscribers' figures so far: \(status.body)")
        #expect(devsim.waitUntilExit(timeout: 20) == 0, "\(devsim.stderr)")

        let checked = try Self.promtool(metrics.body)
        #expect(checked.status == 0, "promtool check metrics: \(checked.stdout)\(checked.stderr)\n\(metrics.body)")
        let report = try RunFiles.report(file + ".json")
        for (figure, name) in [("scheduled", "scheduled_total"), ("published", "published_total"), ("acknowledged", "acknowledged_total")] {
            #expect(Self.value(metrics.body, "devsim_\(name){group=\"meter\"}") == report[figure] as? Int, "\(figure): \(metrics.body)")
        }
        #expect(Self.value(metrics.body, "devsim_connections_up{group=\"meter\"}") == 5)
        let screens = try #require((report["subscribers"] as? [[String: Any]])?.first)
        #expect(Self.value(metrics.body, "devsim_subscriber_received_total{group=\"screens\"}") == 10 && screens["received"] as? Int == 10)
        #expect(Self.value(metrics.body, "devsim_subscriber_connections_subscribed{group=\"screens\"}") == 2)
        #expect(Self.value(metrics.body, "devsim_subscriber_latency_seconds_count{group=\"screens\"}") == 10, "\(metrics.body)")
        #expect(Self.value(metrics.body, "devsim_ack_latency_seconds_count") == (report["latency"] as? [String: Any])?["count"] as? Int)
    }

    /// In-process: the stall is a hook of the library's settings, which no flag sets.
    @Test func readinessFollowsTheConnectionsAndHealthTheLoops() throws {
        let broker = try MosquittoBroker()
        broker.pause()  // TCP is accepted, no CONNACK comes
        let file = try RunFiles.scenario("svc-ready.yaml", "broker: { reconnect: { initial: 200ms, max: 400ms } }\n" + Self.quiet)
        defer { RunFiles.removeFolder(of: file) }
        // `--ready 100%`, and the first loop stalled for 4 s a second in.
        let devsim = try ServedRun(file: file, brokerPort: broker.port, settings: { $0.stallFirstLoop = .seconds(4) }) {
            $0.readyPercent = 100
        }
        let port = devsim.port
        let before = try HTTPGet.request(port: port, path: "/readyz")
        #expect(before.status == 503 && before.body.contains("not ready: 0/5 connections up (0 %), below --ready 100 %"), "\(before.body)")
        // A second in, the first loop blocks for 4 s. The next probe finds it within about a
        // second, and a second later /healthz says so, until the loop answers: a window of
        // about 2 s, waited for from the stall's start, not from the serving (on a busy machine
        // the fleet's start can come well after it: CI missed a 0.5 s window so).
        #expect(
            TestClock.wait(timeout: 15, interval: 0.02) { devsim.log.contains("event loop devsim-loop-0 blocks for 4.0s") },
            "\(devsim.log)")
        #expect(
            TestClock.wait(timeout: 4, interval: 0.05) { (try? HTTPGet.request(port: port, path: "/healthz").status) == 503 },
            "a stuck loop fails /healthz")
        let unhealthy = try HTTPGet.request(port: port, path: "/healthz")
        #expect(unhealthy.status != 503 || unhealthy.body.contains("event loop devsim-loop-0 has not answered"), "\(unhealthy.body)")
        #expect(TestClock.wait(timeout: 6, interval: 0.05) { (try? HTTPGet.request(port: port, path: "/healthz").status) == 200 })
        broker.resume()
        #expect(
            TestClock.wait(timeout: 15, interval: 0.05) { (try? HTTPGet.request(port: port, path: "/readyz").status) == 200 },
            "\(devsim.log)")
        broker.kill()
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { (try? HTTPGet.request(port: port, path: "/readyz").status) == 503 })
        // SIGTERM's stop: the run ends as asked, exit 0.
        #expect(try devsim.stop(timeout: 10)?.reason == .requested, "\(devsim.log)")
    }

    @Test func aTokenGuardsEveryRequestAndIsRequiredOffLoopback() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario("svc-token.yaml", Self.quiet)
        defer { RunFiles.removeFolder(of: file) }
        let tokenFile = file + ".token"
        try "s3cret-token\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let refused = try DevsimRun(file, port: broker.port, ["--http", "0.0.0.0:0"], statsInterval: nil, timeout: 20)
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("--http 0.0.0.0:0 listens beyond this machine: give --http-token-file FILE"), "\(refused.stderr)")

        let devsim = try DevsimRun.start(file, port: broker.port, ["--duration", "3s", "--http", "0", "--http-token-file", tokenFile])
        let port = try #require(Self.servedPort(devsim), "\(devsim.stderr)")
        let anonymous = try HTTPGet.request(port: port, path: "/metrics")
        #expect(anonymous.status == 401 && anonymous.headers["www-authenticate"] == "Bearer", "\(anonymous)")
        let wrong = try HTTPGet.request(port: port, path: "/metrics", headers: ["Authorization": "Bearer nope"])
        #expect(wrong.status == 401)
        let right = try HTTPGet.request(port: port, path: "/metrics", headers: ["Authorization": "Bearer s3cret-token"])
        #expect(right.status == 200 && right.body.contains("devsim_published_total"))
        let missing = try HTTPGet.request(port: port, path: "/nothing", headers: ["Authorization": "Bearer s3cret-token"])
        #expect(missing.status == 404)
        #expect(devsim.waitUntilExit(timeout: 20) == 0)
        #expect(!devsim.stderr.contains("s3cret"), "the token never shows in the log")
    }

    /// `promtool check metrics`, reading the text on its standard input.
    static func promtool(_ text: String) throws -> (status: Int32?, stdout: String, stderr: String) {
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("devsim-metrics-\(UUID().uuidString).txt").path
        try text.write(toFile: input, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: input) }
        return try DevsimProcess.runToCompletion(executable: "/bin/sh", args: ["-c", "promtool check metrics < '\(input)'"], timeout: 30)
    }

    /// The series that more than one sample of `text` has: a scrape Prometheus refuses
    /// ("duplicate sample"), which `promtool check metrics` 2.42 lets pass.
    static func repeatedSeries(_ text: String) -> [String] {
        let series = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0[..<($0.lastIndex(of: " ") ?? $0.endIndex)] }
        return Dictionary(grouping: series) { $0 }.filter { $0.value.count > 1 }.keys.map(String.init).sorted()
    }

    /// The value of the sample `series` (its name and labels, as written).
    static func value(_ text: String, _ series: String) -> Int? {
        let line = text.split(separator: "\n").first { $0.hasPrefix(series + " ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") }
    }

    /// Item 4: pause and resume over HTTP, the seed's phone going to the background and back.
    /// A subscriber sees the group go quiet and come back; its ticks while paused are counted as
    /// `paused`, the other group is not touched, and every tick is counted once.
    @Test func pauseAndResumeAGroupOverHTTP() throws {
        let broker = try MosquittoBroker()
        let subscriber = try Subscriber(port: broker.port, topic: "ctl/#")
        let file = try RunFiles.scenario(
            "svc-control.yaml",
            """
            devices:
              - name: phone
                count: 2
                topic: "ctl/phone/{index}"
                publish: 20/s
                qos: 1
                payload: { fields: { seq: { counter: 0 } } }
              - name: meter
                topic: "ctl/meter"
                publish: 20/s
                payload: { fields: { seq: { counter: 0 } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port, ["--duration", "6s", "--http", "0"], report: true)
        let port = try #require(Self.servedPort(devsim), "\(devsim.stderr)")
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { (try? HTTPGet.request(port: port, path: "/readyz").status) == 200 })
        TestClock.sleep(1)
        let paused = try HTTPGet.request(port: port, path: "/api/groups/phone/pause", method: "POST")
        #expect(paused.status == 200 && paused.body == "{\"group\":\"phone\",\"command\":\"pause\",\"connections\":2}\n", "\(paused)")
        TestClock.sleep(0.5)  // what was on its way arrives
        let phones = { subscriber.messages.filter { $0.topic.hasPrefix("ctl/phone/") }.count }
        let meters = { subscriber.messages.filter { $0.topic == "ctl/meter" }.count }
        let (phonesAtPause, metersAtPause) = (phones(), meters())
        TestClock.sleep(1.5)
        #expect(phones() == phonesAtPause, "a paused group publishes nothing")
        #expect(meters() > metersAtPause + 15, "the other group goes on")
        let up = try HTTPGet.request(port: port, path: "/readyz")
        #expect(up.body.contains("1/3 connections up, 2 paused (100 %)"), "the paused group left cleanly: \(up.body)")
        #expect(up.status == 200, "paused connections are down as asked: still ready")
        let resumed = try HTTPGet.request(port: port, path: "/api/groups/phone/resume", method: "POST")
        #expect(resumed.status == 200, "\(resumed)")
        #expect(TestClock.wait(timeout: 5, interval: 0.05) { phones() > phonesAtPause + 10 }, "the group publishes again")
        // A resume on the heels of a pause, before its DISCONNECT is out: the connections are
        // counted down once and up once.
        _ = try HTTPGet.request(port: port, path: "/api/groups/phone/pause", method: "POST")
        _ = try HTTPGet.request(port: port, path: "/api/groups/phone/resume", method: "POST")
        #expect(
            TestClock.wait(timeout: 5, interval: 0.05) {
                (try? HTTPGet.request(port: port, path: "/readyz").body.contains("3/3 connections up")) == true
            },
            "\((try? HTTPGet.request(port: port, path: "/readyz").body) ?? "")")
        TestClock.sleep(0.5)
        #expect((try HTTPGet.request(port: port, path: "/readyz")).body.contains("3/3 connections up"), "never more up than there are")
        let unknown = try HTTPGet.request(port: port, path: "/api/groups/tablet/pause", method: "POST")
        #expect(unknown.status == 404 && unknown.body.contains("no device group 'tablet'"))
        #expect(try HTTPGet.request(port: port, path: "/api/groups/phone/pause").status == 405, "a change takes POST")
        #expect(devsim.waitUntilExit(timeout: 20) == 0, "\(devsim.stderr)")

        let report = try RunFiles.report(file + ".json")
        #expect(RunFiles.accountsForEveryTick(report), "every tick counted once: \(report)")
        let groups = report["groups"] as? [[String: Any]] ?? []
        let phone = groups.first { $0["name"] as? String == "phone" } ?? [:]
        let meter = groups.first { $0["name"] as? String == "meter" } ?? [:]
        #expect((phone["paused"] as? Int ?? 0) >= 2 * 20, "about 1.5 s of two devices at 20/s: \(phone)")
        #expect(phone["reconnects"] as? Int == 0 && phone["skippedOffline"] as? Int == 0, "a pause is neither a loss nor offline: \(phone)")
        #expect(meter["paused"] as? Int == 0, "\(meter)")
        #expect(devsim.stderr.contains("device group 'phone' paused (2 connections)"), "every change is logged")
    }

    /// Item 3: /api/events sends a status object a second, and an event per change.
    @Test func eventsStreamTheStatusEverySecondAndEachChange() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario("svc-events.yaml", Self.quiet)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port, ["--duration", "6s", "--http", "0"])
        let port = try #require(Self.servedPort(devsim), "\(devsim.stderr)")
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { (try? HTTPGet.request(port: port, path: "/readyz").status) == 200 })
        let text = try HTTPGet.stream(port: port, path: "/api/events", seconds: 3.2) {
            _ = try? HTTPGet.request(port: port, path: "/api/groups/meter/pause", method: "POST")
        }
        #expect(text.hasPrefix("HTTP/1.1 200") && text.contains("Content-Type: text/event-stream"), "\(text.prefix(300))")
        let statuses = text.components(separatedBy: "event: status\ndata: {").count - 1
        #expect(statuses >= 3, "one at once, then one a second: \(text)")
        #expect(text.contains("event: group\ndata: {\"group\":\"meter\",\"command\":\"pause\",\"connections\":5}"), "\(text)")
        #expect(text.contains("\"connectionsUp\":0"), "the status after the pause: \(text)")
        #expect(devsim.waitUntilExit(timeout: 20) == 0, "a stream still open does not hold the end: \(devsim.stderr)")
    }

    /// Item 6: the live page as a person sees it, in headless Chromium. It loads with no console
    /// message, its charts take a point a second from /api/events, and its pause button (pressed
    /// by the page's test hand, `#click=pause:NAME`, as a person would press it) pauses the group.
    /// In-process: the page's test hand is a setting of the service, which no flag sets.
    @Test func theLivePageWorksInABrowser() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario("svc-page.yaml", Self.quiet.replacingOccurrences(of: "publish: 1/10s", with: "publish: 2/s"))
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try ServedRun(file: file, brokerPort: broker.port, settings: { $0.duration = .seconds(8) }) {
            $0.pageTestHand = true
        }
        let port = devsim.port
        let page = try HTTPGet.request(port: port, path: "/")
        #expect(page.status == 200 && page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(!page.body.contains("http://") && !page.body.contains("https://"), "nothing from elsewhere")
        // Virtual time waits while the page's event stream is open: the dump comes when the run
        // ends and the stream with it.
        let browser = try DevsimProcess.runToCompletion(
            executable: "/usr/bin/chromium",
            args: [
                "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0", "--virtual-time-budget=20000",
                "--dump-dom", "http://127.0.0.1:\(port)/#click=pause:meter",
            ], timeout: 60)
        #expect(browser.status == 0, "\(browser.stderr.suffix(2000))")
        let console = browser.stderr.split(separator: "\n").filter { $0.contains("CONSOLE") || $0.contains("Uncaught") }
        #expect(console.isEmpty, "the page logs nothing: \(console)")
        let events =
            browser.stdout.firstRange(of: "data-events=\"").map { Int(browser.stdout[$0.upperBound...].prefix { $0.isNumber }) ?? 0 } ?? 0
        #expect(events >= 3, "a status a second reached the page: \(browser.stdout.prefix(400))")
        let points = ["rateChart", "latencyChart", "latenessChart"].map { LivePageDOM.figure($0, in: browser.stdout)?.points }
        #expect(points.allSatisfy { $0 == points[0] && ($0 ?? 0) >= 3 }, "every chart has the run's points: \(points)")
        #expect(browser.stdout.contains("<tr data-group=\"meter\">"), "the groups table")
        #expect(
            browser.stdout.contains("<td class=\"payload\">{\"params\":{\"seq\":"),
            "the group's latest payload: \(browser.stdout.suffix(1500))")
        LivePageDOM.expectReadable(browser.stdout)
        // Issue 25, item 2: the run's end is told, and the page stops reconnecting.
        #expect(
            browser.stdout.contains("data-state=\"finished\">run finished (duration) after "),
            "the run's end, not reconnecting…: \(browser.stdout.prefix(1500))")
        let result = try #require(try devsim.result(timeout: 20), "\(devsim.log)")
        #expect(result.reason == .duration, "\(devsim.log)")
        let report = try devsim.report(result)
        #expect(devsim.log.contains("device group 'meter' paused (5 connections)"), "the button paused the group: \(devsim.log)")
        #expect((report["connectionsUp"] as? Int) == 0, "its connections left: \(report)")
    }

    /// Item 4: the same commands over MQTT, on the scenario's control topic.
    @Test func pauseAndResumeOverTheControlTopic() throws {
        let broker = try MosquittoBroker()
        let subscriber = try Subscriber(port: broker.port, topic: "mctl/#")
        let file = try RunFiles.scenario(
            "svc-mqtt-control.yaml",
            """
            control: { topic: devsim/control }
            devices:
              - name: phone
                topic: "mctl/phone"
                publish: 20/s
                payload: { fields: { seq: { counter: 0 } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port, ["--duration", "6s"], report: true)
        #expect(devsim.waitForOutput(containing: "control: listening on 'devsim/control'", inStderr: true, timeout: 10), "\(devsim.stderr)")
        func send(_ message: String) throws {
            let result = try MosquittoPub.run(port: broker.port, ["-t", "devsim/control", "-m", message], timeout: 10)
            #expect(result.status == 0, "\(result.stderr)")
        }
        TestClock.sleep(0.5)
        try send("{\"group\": \"phone\", \"command\": \"pause\"}")
        #expect(devsim.waitForOutput(containing: "device group 'phone' paused (1 connection)", inStderr: true, timeout: 5))
        TestClock.sleep(0.5)
        let atPause = subscriber.messages.count
        TestClock.sleep(1.5)
        #expect(subscriber.messages.count == atPause, "a paused group publishes nothing")
        try send("not json")
        try send("{\"group\": \"tablet\", \"command\": \"pause\"}")
        try send("{\"group\": \"phone\", \"command\": \"resume\"}")
        #expect(TestClock.wait(timeout: 5, interval: 0.05) { subscriber.messages.count > atPause + 10 }, "it publishes again")
        #expect(devsim.waitUntilExit(timeout: 20) == 0, "\(devsim.stderr)")
        #expect(devsim.stderr.contains("control: a message on 'devsim/control' that is not {"), "\(devsim.stderr)")
        #expect(devsim.stderr.contains("control: pause of 'tablet' from 'devsim/control': no device group 'tablet'"), "\(devsim.stderr)")
        let report = try RunFiles.report(file + ".json")
        #expect((report["paused"] as? Int ?? 0) >= 20 && RunFiles.accountsForEveryTick(report), "\(report)")
    }

    /// Item 4: a new rate for a running group, from its next tick on.
    @Test func aGroupsRateChangesWhileItRuns() throws {
        let broker = try MosquittoBroker()
        let subscriber = try Subscriber(port: broker.port, topic: "rate/#")
        let file = try RunFiles.scenario(
            "svc-rate.yaml",
            """
            devices:
              - name: meter
                count: 2
                topic: "rate/{index}"
                publish: 2/s
                payload: { fields: { seq: { counter: 0 } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port, ["--duration", "5s", "--http", "0"], report: true)
        let port = try #require(Self.servedPort(devsim), "\(devsim.stderr)")
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { (try? HTTPGet.request(port: port, path: "/readyz").status) == 200 })
        let meters = { subscriber.messages.count }
        let before = meters()
        TestClock.sleep(1)
        let slow = meters() - before
        let changed = try HTTPGet.request(port: port, path: "/api/groups/meter/rate", method: "POST", body: "{\"publish\": \"40/s\"}")
        #expect(changed.status == 200 && changed.body.contains("\"perSecond\":40"), "\(changed)")
        TestClock.sleep(0.7)  // each device's pending tick stays where it was due, then the new rate
        let after = meters()
        TestClock.sleep(1)
        let fast = meters() - after
        // 4 a second, then 80: a subscriber that lags under load blurs the edges, not the tenfold.
        #expect(slow <= 10 && fast >= 40, "2 devices at 2/s, then at 40/s: \(slow) then \(fast) in a second")
        let bad = try HTTPGet.request(port: port, path: "/api/groups/meter/rate", method: "POST", body: "{\"publish\": \"fast\"}")
        #expect(bad.status == 400 && bad.body.contains("\"publish\""), "\(bad)")
        let none = try HTTPGet.request(port: port, path: "/api/groups/meter/rate", method: "POST")
        #expect(none.status == 400 && none.body.contains("rate needs \"publish\""), "\(none)")
        #expect(devsim.waitUntilExit(timeout: 20) == 0, "\(devsim.stderr)")
        #expect(devsim.stderr.contains("device group 'meter' now publishes 40.000 times a second per device (2 connections)"))
        #expect(RunFiles.accountsForEveryTick(try RunFiles.report(file + ".json")))
    }

    /// A `publish: max` group waits for room between messages; paused while it waits (its window
    /// full behind a frozen broker), then resumed, it goes on.
    @Test func aPublishMaxGroupGoesOnAfterAPause() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario(
            "svc-max.yaml",
            """
            devices:
              - name: flood
                topic: "max/flood"
                publish: max
                qos: 1
                payload: { fields: { seq: { counter: 0 } } }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port, ["--duration", "4s", "--http", "0", "--max-inflight", "1"])
        let port = try #require(Self.servedPort(devsim), "\(devsim.stderr)")
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { (try? HTTPGet.request(port: port, path: "/readyz").status) == 200 })
        func published() throws -> Int {
            let status = try HTTPGet.request(port: port, path: "/api/status").body
            guard let range = status.firstRange(of: "\"published\" : ") else { return -1 }
            return Int(status[range.upperBound...].prefix { $0.isNumber }) ?? -1
        }
        broker.pause()
        TestClock.sleep(0.3)  // the one message in flight is not acknowledged: the device waits for room
        #expect(try HTTPGet.request(port: port, path: "/api/groups/flood/pause", method: "POST").status == 200)
        TestClock.sleep(0.3)
        broker.resume()
        TestClock.sleep(0.3)
        #expect(try HTTPGet.request(port: port, path: "/api/groups/flood/resume", method: "POST").status == 200)
        TestClock.sleep(0.5)
        let before = try published()
        TestClock.sleep(0.5)
        #expect(try published() > before + 100, "the waiting device was woken by the resume's CONNACK")
        #expect(devsim.waitUntilExit(timeout: 20) == 0, "\(devsim.stderr)")
    }

    /// A command from the control topic is an event on /api/events too, as an HTTP one is.
    @Test func aControlTopicCommandIsAnEvent() throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario("svc-control-event.yaml", "control: { topic: devsim/control }\n" + Self.quiet)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port, ["--duration", "5s", "--http", "0"])
        let port = try #require(Self.servedPort(devsim), "\(devsim.stderr)")
        #expect(devsim.waitForOutput(containing: "control: listening on 'devsim/control'", inStderr: true, timeout: 10), "\(devsim.stderr)")
        let text = try HTTPGet.stream(port: port, path: "/api/events", seconds: 2) {
            _ = try? MosquittoPub.run(
                port: broker.port, ["-t", "devsim/control", "-m", "{\"group\": \"meter\", \"command\": \"pause\"}"], timeout: 10)
        }
        #expect(text.contains("event: group\ndata: {\"group\":\"meter\",\"command\":\"pause\",\"connections\":5}"), "\(text)")
        #expect(try HTTPGet.request(port: port, path: "/api/events", method: "HEAD").status == 200)
        #expect(devsim.waitUntilExit(timeout: 20) == 0, "\(devsim.stderr)")
    }
}
