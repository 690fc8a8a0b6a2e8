import Foundation
import Testing
import TestSupport

/// Issue 25, item 10: the Grafana dashboard of `deploy/grafana/` shows data. Grafana cannot run
/// here, so the test does what it would: every query of every panel, with the dashboard's
/// variables at "All", asked of a real Prometheus scraping running devsims with the example's
/// own files (its scrape configuration and token, its mosquitto ACL, its demo fleet, and the
/// capacity search of its compose file). A query naming a series devsim does not serve, or a
/// label value none of its series has, or a quantile of a histogram with nothing in it, answers
/// nothing that a panel could draw, and fails here.
@Suite(.tags(.integration), .notUnitOnly) struct GrafanaDashboardTests {
    static let example = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy/grafana")

    /// A query of the dashboard: where it is, and its PromQL as written.
    struct Query: CustomStringConvertible {
        var panel: String
        var refId: String
        var expr: String
        var description: String { "panel '\(panel)' \(refId): \(expr)" }
    }

    /// The dashboard's queries and its variables (name → the value "All" gives it), from the JSON.
    static func dashboard() throws -> (queries: [Query], variables: [String: String], variableQueries: [String]) {
        let data = try Data(contentsOf: example.appendingPathComponent("grafana/dashboards/devsim.json"))
        let model = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var panels = model["panels"] as? [[String: Any]] ?? []
        panels += panels.flatMap { $0["panels"] as? [[String: Any]] ?? [] }  // a collapsed row holds its panels
        let queries = panels.flatMap { panel in
            (panel["targets"] as? [[String: Any]] ?? []).map {
                Query(panel: panel["title"] as? String ?? "?", refId: $0["refId"] as? String ?? "?", expr: $0["expr"] as? String ?? "")
            }
        }
        var variables: [String: String] = [:]
        var variableQueries: [String] = []
        for variable in (model["templating"] as? [String: Any])?["list"] as? [[String: Any]] ?? [] {
            guard variable["type"] as? String == "query", let name = variable["name"] as? String else { continue }
            variables[name] = variable["allValue"] as? String
            if let definition = variable["definition"] as? String { variableQueries.append(definition) }
        }
        return (queries, variables, variableQueries)
    }

    /// `expr` as Grafana sends it with every variable at "All": each `$name` and `${name}` its
    /// `allValue`, and `$__rate_interval` the 5 s that four 1 s scrapes and a little make.
    static func substituted(_ expr: String, _ variables: [String: String]) -> String {
        var text = expr.replacingOccurrences(of: "$__rate_interval", with: "5s")
        // Longest first: `$group` must not eat the start of a `$groups`.
        for (name, value) in variables.sorted(by: { $0.key.count > $1.key.count }) {
            text = text.replacingOccurrences(of: "${\(name)}", with: value).replacingOccurrences(of: "$\(name)", with: value)
        }
        return text
    }

    /// The example's `prometheus.yml` as the test runs it: its targets the two devsims here, the
    /// token file the one in the folder, a scrape a second.
    static func scrapeConfiguration(feed: Int, capacity: Int) throws -> String {
        var text = try String(contentsOf: example.appendingPathComponent("prometheus/prometheus.yml"), encoding: .utf8)
        for (from, to) in [
            ("scrape_interval: 5s", "scrape_interval: 1s"), ("\"devsim:9180\"", "\"127.0.0.1:\(feed)\""),
            ("\"capacity:9180\"", "\"127.0.0.1:\(capacity)\""),
            ("/etc/prometheus/devsim-token", example.appendingPathComponent("devsim-token").path),
        ] {
            try #require(text.contains(from), "prometheus.yml no longer has \(from)")
            text = text.replacingOccurrences(of: from, with: to)
        }
        return text
    }

    @Test func everyPanelsQueryReturnsDataFromPrometheusScrapingDevsim() throws {
        let (queries, variables, variableQueries) = try Self.dashboard()
        try #require(queries.count >= 20, "the dashboard's queries: \(queries)")
        let runnable = queries.map { (query: $0, expr: Self.substituted($0.expr, variables)) }
        for (query, expr) in runnable {
            #expect(!expr.contains("$"), "a variable the test does not know in \(query)")
        }

        let broker = try MosquittoBroker(extraConfig: ["acl_file \(Self.example.appendingPathComponent("mosquitto/acl").path)"])
        let token = Self.example.appendingPathComponent("devsim-token").path
        let common = ["--http", "0", "--http-token-file", token]
        // The compose file's feed, smaller; its stages are minutes long, so stage 1 holds.
        let feed = try DevsimRun.start(
            Self.example.appendingPathComponent("devsim/demo.yaml").path, port: broker.port, common, environment: ["DEVICES": "10"])
        // The compose file's capacity search, slowed down so that it is still on its first
        // steps when the queries are asked, and capped in case the test stops early.
        let scenarios = Self.example.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scenarios")
        let search = try DevsimRun.start(
            scenarios.appendingPathComponent("broker-load.yaml").path, port: broker.port,
            ["--find-capacity", "--slo", "p99<5s", "--step", "10s", "--warmup", "2s", "--duration", "90s"] + common,
            environment: ["DEVICES": "4", "RATE": "2/s"])
        defer {
            feed.terminate(grace: 10)
            search.terminate(grace: 10)
        }
        let feedPort = try #require(ServiceTests.servedPort(feed), "\(feed.stderr)")
        let searchPort = try #require(ServiceTests.servedPort(search), "\(search.stderr)")
        let prometheus = try PrometheusServer(config: try Self.scrapeConfiguration(feed: feedPort, capacity: searchPort))

        // A rate needs two scrapes in its window, a quantile observations between them, and the
        // capacity step its search under way: ask until every query answers, or 40 s have gone.
        var answers: [String: [PrometheusServer.Sample]] = [:]
        let answered = TestClock.wait(timeout: 40, interval: 1) {
            for (_, expr) in runnable where !(answers[expr].map(Self.hasData) ?? false) {
                answers[expr] = try? prometheus.query(expr)
            }
            return runnable.allSatisfy { answers[$0.expr].map(Self.hasData) ?? false }
        }
        for (query, expr) in runnable where !(answers[expr].map(Self.hasData) ?? false) {
            let samples = try prometheus.query(expr)  // a query Prometheus refuses throws, with its reason
            Issue.record("no data for \(query), asked as \(expr): \(samples.map(\.labels))")
        }
        if !answered {
            Issue.record("prometheus: \(prometheus.log)\nfeed: \(feed.stderr.suffix(2000))\nsearch: \(search.stderr.suffix(2000))")
        }

        // The variables' label_values(SELECTOR, LABEL) have values to offer.
        for definition in variableQueries {
            let inner = try #require(definition.firstMatch(of: /^label_values\((.+),\s*(\w+)\)$/), "\(definition)")
            let series = try prometheus.series(Self.substituted(String(inner.1), variables))
            #expect(series.contains { $0[String(inner.2)] != nil }, "variable \(definition): no \(inner.2) in \(series)")
        }

        // Every series devsim serves is on a panel: a new one needs its panel too.
        let served = try prometheus.metricNames().filter { $0.hasPrefix("devsim_") }
        let families = Set(served.map { $0.replacing(/_(sum|count)$/, with: "") })
        let asked = queries.map(\.expr).joined(separator: "\n")
        #expect(families.count >= 30, "\(families.sorted())")
        let missing = families.filter { !asked.contains($0) }.sorted()
        #expect(missing.isEmpty, "no panel shows \(missing)")
    }

    /// An answer a panel draws: a sample at least, and one that is a number (a quantile of a
    /// histogram with nothing in its window is `NaN`, which Grafana leaves blank).
    static func hasData(_ samples: [PrometheusServer.Sample]) -> Bool {
        samples.contains { $0.value.isFinite }
    }
}
