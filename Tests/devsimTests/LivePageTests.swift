import Foundation
import Glibc
import Report
import Simulator
import Testing
import TestSupport

/// Issue 25, items 2 and 3: the live page read at a glance, as headless Chromium leaves its DOM
/// once its scripts ran, and the stage under way in `/metrics`.
@Suite(.tags(.integration), .notUnitOnly) struct LivePageTests {
    /// Ten QoS 0 devices at 1/s under a stage that holds their rate for a minute: QoS 0 has no
    /// acknowledgements, so the latency chart is empty.
    private static let staged = """
        stages:
          - { duration: 60s, multiplier: 1 }
        devices:
          - name: meter
            count: 10
            topic: "page/{index}"
            publish: 1/s
            payload: { fields: { seq: { counter: 0 } } }
        """

    /// Runs the staged scenario with `--http`, until `devsim_published_total` reaches
    /// `published`; then `body` with the port, and devsim is stopped. With `testHand`, the run is
    /// made in this process (`ServedRun`), its live page carrying the test hand, which no flag
    /// of the binary gives.
    private func whilePublishing(_ published: Int, testHand: Bool = false, _ body: (_ port: Int) throws -> Void) throws {
        let broker = try MosquittoBroker()
        let file = try RunFiles.scenario("page.yaml", Self.staged)
        defer { RunFiles.removeFolder(of: file) }
        let port: Int
        let log: () -> String
        let stop: () throws -> Bool
        if testHand {
            let run = try ServedRun(file: file, brokerPort: broker.port) { _ in
            } service: {
                $0.pageTestHand = true
            }
            (port, log) = (run.port, { run.log })
            stop = { try run.stop(timeout: 10)?.reason == .requested }
        } else {
            let devsim = try DevsimRun.start(file, port: broker.port, ["--http", "0"])
            port = try #require(ServiceTests.servedPort(devsim), "\(devsim.stderr)")
            log = { devsim.stderr }
            stop = { devsim.terminate(grace: 10) == 0 }
        }
        let going = TestClock.wait(timeout: 20, interval: 0.1) {
            let metrics = (try? HTTPGet.request(port: port, path: "/metrics").body) ?? ""
            return (ServiceTests.value(metrics, "devsim_published_total{group=\"meter\"}") ?? 0) >= published
        }
        try #require(going, "\(log())")
        try body(port)
        #expect(try stop(), "\(log())")
    }

    /// A page opened mid-run shows the rate from its first event (it read 0.0), the stage under
    /// way and its target, and an empty chart that says why, not a scale of 1e-9.
    @Test func theFirstEventGivesTheRateAndTheStage() throws {
        // Two seconds of publishing: the page's first event has a second of it.
        try whilePublishing(20, testHand: true) { port in
            // The test hand stops listening after the first status, so the DOM is that event's.
            let browser = try DevsimProcess.runToCompletion(
                executable: "/usr/bin/chromium",
                args: [
                    "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000",
                    "--dump-dom", "http://127.0.0.1:\(port)/#first",
                ], timeout: 60)
            #expect(browser.status == 0, "\(browser.stderr.suffix(2000))")
            let dom = browser.stdout
            #expect(dom.contains("data-events=\"1\""), "the first event alone: \(dom.prefix(600))")
            let rate = LivePageDOM.text(of: "rate", in: dom)
            let number = rate.flatMap { Double($0.dropLast(3).replacingOccurrences(of: ",", with: "")) }
            #expect(rate?.hasSuffix(" /s") == true && (number ?? 0) > 0, "the tile has the last second's rate: \(String(describing: rate))")
            #expect(LivePageDOM.text(of: "position", in: dom)?.hasPrefix("stage 1 of 1 (x1), 0:") == true, "\(dom.prefix(1500))")
            #expect(LivePageDOM.text(of: "target", in: dom) == "10 /s", "ten devices at 1/s")
            let latency = try #require(LivePageDOM.figure("latencyChart", in: dom))
            #expect(latency.html.contains("data-empty=\"true\"") && latency.html.contains("no acknowledgements yet"), "\(latency.html)")
            LivePageDOM.expectReadable(dom)
        }
    }

    /// Issue 38, item 11: what the broker refused each device group, with its reason (an ACL's
    /// PUBACK 0x87 under MQTT 5), and the subscriber groups with what they received, as a person
    /// reads them on the page: the page's first status, once the run has both to show.
    @Test func refusalsByGroupAndReasonAndTheSubscriberGroupsShow() throws {
        let broker = try MosquittoBroker(acl: "topic readwrite allowed/#\n")
        let file = try RunFiles.scenario(
            "page-refused.yaml",
            """
            broker: { protocol: mqtt5 }
            defaults: { publish: 10/s, qos: 1, payload: { fields: { seq: { counter: 0 } } } }
            devices:
              - { name: sensor, count: 2, topic: "allowed/{index}" }
              - { name: intruder, count: 2, topic: "denied/{index}" }
            subscribers:
              - { name: screens, count: 2, topics: "allowed/#", qos: 1 }
            """)
        defer { RunFiles.removeFolder(of: file) }
        let run = try ServedRun(file: file, brokerPort: broker.port) { _ in
        } service: {
            $0.pageTestHand = true
        }
        let going = TestClock.wait(timeout: 20, interval: 0.1) {
            let live = run.fleet.live().result
            return live.totals[.refused] > 0 && (live.subscribers.first?.received ?? 0) > 0
        }
        try #require(going, "\(run.log)")
        let browser = try DevsimProcess.runToCompletion(
            executable: "/usr/bin/chromium",
            args: [
                "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000",
                "--dump-dom", "http://127.0.0.1:\(run.port)/#first",
            ], timeout: 60)
        #expect(browser.status == 0, "\(browser.stderr.suffix(2000))")
        let dom = browser.stdout
        #expect(dom.contains("data-events=\"1\""), "the first event alone: \(dom.prefix(600))")

        let refused = try #require(LivePageDOM.cells(of: "data-group=\"intruder\"", in: dom), "\(dom)")
        let columns = try #require(LivePageDOM.headers(of: "groups", in: dom), "\(dom)")
        let cell = try #require(columns.firstIndex(of: "refused").map { refused[$0] }, "\(columns)")
        let count = Int(cell.prefix { $0.isNumber || $0 == "," }.replacingOccurrences(of: ",", with: "")) ?? 0
        #expect(count > 0 && cell.hasSuffix("<small>Not authorized (0x87)</small>"), "the count and its reason: \(cell)")
        let allowed = try #require(LivePageDOM.cells(of: "data-group=\"sensor\"", in: dom))
        #expect(allowed[columns.firstIndex(of: "refused")!] == "0", "\(allowed)")
        #expect(dom.contains("<div class=\"figure\" id=\"refusedFigure\">refused by the broker<b id=\"refused\">"), "the tile shows")
        #expect(Int(LivePageDOM.text(of: "refused", in: dom)?.replacingOccurrences(of: ",", with: "") ?? "") == count)

        #expect(dom.contains("<table id=\"subscribers\">"), "the subscriber groups' table shows: \(dom)")
        let subscriberColumns = try #require(LivePageDOM.headers(of: "subscribers", in: dom))
        let screens = try #require(LivePageDOM.cells(of: "data-subscriber-group=\"screens\"", in: dom), "\(dom)")
        let figure = { (name: String) in subscriberColumns.firstIndex(of: name).map { screens[$0] } }
        #expect(screens.first == "screens" && figure("subscribed") == "2 / 2", "\(subscriberColumns) \(screens)")
        #expect(Int(figure("received")?.replacingOccurrences(of: ",", with: "") ?? "") ?? 0 > 0, "\(screens)")
        #expect(figure("gaps") == "0" && figure("duplicates") == "0", "\(screens)")
        #expect(try run.stop(timeout: 10)?.reason == .requested, "\(run.log)")
    }

    /// `/metrics` has the stage under way and its target as gauges, which promtool accepts,
    /// and `devsim_build_info`'s version is the version alone.
    @Test func metricsHaveTheStageAndItsTarget() throws {
        try whilePublishing(10) { port in
            let metrics = try HTTPGet.request(port: port, path: "/metrics").body
            let checked = try ServiceTests.promtool(metrics)
            #expect(checked.status == 0, "promtool check metrics: \(checked.stdout)\(checked.stderr)\n\(metrics)")
            #expect(metrics.contains("# TYPE devsim_stage gauge\ndevsim_stage 1\n"), "\(metrics)")
            #expect(metrics.contains("# TYPE devsim_target_messages_per_second gauge\ndevsim_target_messages_per_second 10\n"))
            let version = try DevsimProcess.runToCompletion(executable: DevsimProcess.locateDevsim(), args: ["--version"], timeout: 10)
            let number = version.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ").last.map(String.init) ?? ""
            #expect(!number.isEmpty && metrics.contains("devsim_build_info{version=\"\(number)\"} 1\n"), "\(version.stdout)")
        }
    }
}

/// What the tests read of the live page's DOM, as Chromium dumps it.
enum LivePageDOM {
    /// The text of the element with `id`, when it holds text alone.
    static func text(of id: String, in dom: String) -> String? {
        guard let start = dom.firstRange(of: "id=\"\(id)\"") else { return nil }
        let rest = dom[start.upperBound...]
        guard let open = rest.firstIndex(of: ">"), let close = rest[open...].firstIndex(of: "<") else { return nil }
        return String(rest[rest.index(after: open)..<close])
    }

    /// The inner HTML of each cell of the table row that has `attribute` (`data-group="meter"`).
    static func cells(of attribute: String, in dom: String) -> [String]? {
        guard let start = dom.firstRange(of: "<tr \(attribute)>"), let end = dom[start.upperBound...].firstRange(of: "</tr>") else {
            return nil
        }
        return dom[start.upperBound..<end.lowerBound].split(separator: "</td>").map {
            String($0.drop { $0 != ">" }.dropFirst())
        }
    }

    /// The header texts of the table `id`.
    static func headers(of id: String, in dom: String) -> [String]? {
        guard let start = dom.firstRange(of: "<table id=\"\(id)\""), let end = dom[start.upperBound...].firstRange(of: "</thead>") else {
            return nil
        }
        return dom[start.upperBound..<end.lowerBound].matches(of: /<th>([^<]*)<\/th>/).map { String($0.output.1) }
    }

    /// A chart's `<figure>`, and its point count (`data-points`).
    static func figure(_ id: String, in dom: String) -> (html: String, points: Int?)? {
        guard let start = dom.firstRange(of: "<figure id=\"\(id)\""),
            let end = dom[start.lowerBound...].firstRange(of: "</figure>")
        else { return nil }
        let html = String(dom[start.lowerBound..<end.upperBound])
        let points = html.firstRange(of: "data-points=\"").map { Int(html[$0.upperBound...].prefix { $0.isNumber }) ?? -1 }
        return (html, points)
    }

    /// Every chart has a time axis and a legend naming its lines, and its numbers are written
    /// for a person: units, no exponent.
    static func expectReadable(_ dom: String) {
        let charts = [
            ("rateChart", ["published", "scheduled"], " /s</text>"), ("latencyChart", ["p50", "p99"], " ms</text>"),
            ("latenessChart", ["p50", "p99"], " ms</text>"),
        ]
        for (id, lines, unit) in charts {
            guard let figure = figure(id, in: dom)?.html else {
                Issue.record("no chart \(id)")
                continue
            }
            #expect(figure.contains("<g class=\"axis x\">") && figure.contains(">0:00</text>"), "\(id): a time axis from the start")
            #expect(figure.contains(">time since the run began (m:ss)</text>"), "\(id): the time axis says what it is")
            for line in lines { #expect(figure.contains("<li data-line=\"\(line)\">"), "\(id): the legend names \(line)") }
            if !figure.contains("data-empty=\"true\"") {
                #expect(figure.contains("<g class=\"axis y\">") && figure.contains(unit), "\(id): its scale has units: \(figure)")
            }
            #expect(figure.firstMatch(of: />[^<]*\de[+-]\d/) == nil, "\(id): no number with an exponent: \(figure)")
        }
    }
}
