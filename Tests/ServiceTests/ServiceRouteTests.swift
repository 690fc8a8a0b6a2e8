import Testing
@testable import Service
@testable import Report
@testable import Simulator

@Suite struct ServiceRouteTests {
    private func view(up: Int, of connections: Int, paused: Int = 0, stuck: [String] = []) -> DevsimService.View {
        var totals = Totals()
        totals.connectionsUp = up
        totals.connectionsPaused = paused
        let result = RunResult(
            totals: totals, connectionsUpAtEnd: up, connections: connections, durationSeconds: 1, reason: .running,
            latency: Histogram(), lateness: Histogram(), groups: [(name: "g", totals: totals)], connectionErrors: [:],
            allConnectedSeconds: nil)
        return DevsimService.View(live: Fleet.Live(result: result, stuckLoops: stuck)) {
            RunReport(result: result, scenarios: ["s"], seed: 1)
        }
    }

    private func answer(
        _ path: String, method: String = "GET", token: String? = nil, auth: String? = nil, origin: String? = nil,
        testHand: Bool = false, _ view: DevsimService.View
    ) -> HTTPResponse {
        var settings = DevsimService.Settings(address: HTTPAddress(port: 0), token: token, readyPercent: 90, version: "v", startTime: 0)
        settings.pageTestHand = testHand
        let request = HTTPRequest(method: method, path: path, authorization: auth, origin: origin, host: "127.0.0.1:9180")
        return DevsimService.respond(to: request, settings: settings, view: { view }) { _, _ in 1 }
    }

    private func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test func readinessIsTheShareOfConnectionsUp() {
        #expect(answer("/readyz", view(up: 9, of: 10)).status == 200)
        let below = answer("/readyz", view(up: 8, of: 10))
        #expect(below.status == 503 && text(below) == "not ready: 8/10 connections up (80 %), below --ready 90 %\n")
        #expect(answer("/readyz", view(up: 0, of: 0)).status == 503, "no connections is not ready")
        let paused = answer("/readyz", view(up: 1, of: 3, paused: 2))
        #expect(paused.status == 200 && text(paused) == "ready: 1/3 connections up, 2 paused (100 %)\n", "\(text(paused))")
    }

    @Test func healthNamesAStuckLoop() {
        #expect(answer("/healthz", view(up: 1, of: 1)).status == 200)
        let stuck = answer("/healthz", view(up: 1, of: 1, stuck: ["devsim-loop-1"]))
        #expect(stuck.status == 503 && text(stuck).contains("event loop devsim-loop-1 has not answered for over 1 s"))
    }

    @Test func tokensMethodsAndPaths() {
        let v = view(up: 1, of: 1)
        #expect(answer("/metrics", token: "t", v).status == 401)
        #expect(
            answer("/healthz", token: "t", v).status == 200 && answer("/readyz", token: "t", v).status == 200,
            "the kubelet's probes carry no token")
        #expect(answer("/metrics", token: "t", auth: "Bearer t", v).status == 200)
        #expect(answer("/metrics", token: "t", auth: "bearer t", v).status == 401)
        #expect(answer("/metrics", method: "POST", v).status == 405)
        #expect(answer("/nothing", v).status == 404)
        #expect(answer("/", v).contentType == "text/html; charset=utf-8", "the live page")
        let status = answer("/api/status", v)
        #expect(status.status == 200 && status.contentType == "application/json" && text(status).contains("\"outcome\" : \"running\""))
    }

    /// Without a token on loopback, any page the operator visits could post a command: a
    /// browser says whose page sent it, and only this server's own is heard.
    @Test func aCommandFromAnotherSiteIsRefused() {
        let v = view(up: 1, of: 1)
        #expect(answer("/api/groups/g/pause", method: "POST", v).status == 200, "curl sends no Origin")
        #expect(answer("/api/groups/g/pause", method: "POST", origin: "http://127.0.0.1:9180", v).status == 200, "the live page's own")
        let foreign = answer("/api/groups/g/pause", method: "POST", origin: "https://evil.example", v)
        #expect(foreign.status == 403 && text(foreign).contains("another site"))
    }

    @Test func thePagesTestHandIsOnlyThereWhenAskedFor() {
        let v = view(up: 1, of: 1)
        #expect(!text(answer("/", v)).contains("#click="))
        #expect(text(answer("/", testHand: true, v)).contains("#click="))
    }

    @Test func addressesAreReadAndJudged() throws {
        #expect(try HTTPAddress.parse("9180") == HTTPAddress(host: "127.0.0.1", port: 9180))
        #expect(try HTTPAddress.parse("0.0.0.0:80") == HTTPAddress(host: "0.0.0.0", port: 80))
        #expect(try HTTPAddress.parse("[::1]:9180") == HTTPAddress(host: "::1", port: 9180))
        #expect(try HTTPAddress.parse(":9180").host == "127.0.0.1")
        #expect(try HTTPAddress.parse("127.0.0.2:1").isLoopback && !(try HTTPAddress.parse("10.0.0.1:1").isLoopback))
        #expect(throws: HTTPServerError("'localhost' is not an IP address: give one, such as 127.0.0.1, 0.0.0.0 or [::1]")) {
            try HTTPAddress.parse("localhost:9180")
        }
        #expect(throws: HTTPServerError("expected a port from 0 to 65535, found '99999'")) { try HTTPAddress.parse("99999") }
    }
}
