import FoundationEssentials
import Reactor
import Report
import Simulator

/// devsim's HTTP endpoint (`--http`), for the daemon's watchers: `/metrics` for Prometheus,
/// `/healthz` and `/readyz` for Kubernetes' probes, `/api/status` for the report as of now.
package final class DevsimService: Sendable {
    package struct Settings: Sendable {
        package var address: HTTPAddress
        /// Every request must carry `Authorization: Bearer TOKEN`; required off loopback.
        package var token: String?
        /// The share of connections up, in percent, from which `/readyz` says ready.
        package var readyPercent: Double
        /// The version alone (`0.1.0`), as `devsim_build_info`'s label and the page show it.
        package var version: String
        package var shard: Shard?
        /// Seconds since the Unix epoch at which the process started.
        package var startTime: Double
        /// The live page carries its test hand (`#click=…`): for the in-process browser tests
        /// alone, which set it (no flag or variable reaches it), since a link could otherwise
        /// press its buttons.
        package var pageTestHand = false

        package init(
            address: HTTPAddress, token: String? = nil, readyPercent: Double = DevsimService.defaultReadyPercent, version: String,
            shard: Shard? = nil, startTime: Double
        ) {
            self.address = address
            self.token = token
            self.readyPercent = readyPercent
            self.version = version
            self.shard = shard
            self.startTime = startTime
        }
    }

    /// What the routes read: the fleet as of now, and its report.
    package struct View: Sendable {
        package var live: Fleet.Live
        package var report: @Sendable () -> RunReport

        package init(live: Fleet.Live, report: @escaping @Sendable () -> RunReport) {
            self.live = live
            self.report = report
        }
    }

    /// Carries out `command` on the group named: the group's connection count, or why not.
    package typealias Control = @Sendable (_ command: GroupCommand, _ group: String) throws(GroupCommandError) -> Int

    package static let defaultReadyPercent = 90.0

    private let server: HTTPServer
    /// The server loop's.
    private let events: LoopBound<EventHub>

    /// Listens now; `view` is asked for the fleet at each request, on the HTTP loop's thread.
    package init(settings: Settings, view: @escaping @Sendable () -> View, control: @escaping Control) throws(HTTPServerError) {
        let loop = try HTTPServer.makeLoop()
        let events = LoopBound(EventHub(), on: loop)
        self.events = events
        // The handler and the ticks run on the server's loop.
        server = try HTTPServer(address: settings.address, loop: loop) { request in
            Self.respond(to: request, settings: settings, view: view, control: control, events: events.value)
        }
        server.repeating(every: .seconds(1)) { events.value.tick(view()) }
    }

    package var port: Int { server.port }

    /// A group command was carried out, from here or from a control topic: its event, on the
    /// HTTP loop.
    package func noteCommand(_ command: GroupCommand, group: String, connections: Int) {
        let events = self.events
        // Once the server has stopped, no stream is left to tell: the event goes to no one.
        try? server.submit { events.value.groupChanged(group, command, connections: connections) }
    }

    /// A reload of the scenario files, for `/api/events`. Any thread.
    package func noteReload(_ reload: Reload) {
        let events = self.events
        // Once the server has stopped (a SIGHUP at the very end), no stream is left to tell.
        try? server.submit { events.value.reloaded(reload) }
    }

    /// The run ended with `result`: the event streams say so and end, so that a live page shows
    /// the run finished rather than reconnecting to a process that is going. Any thread.
    package func noteFinished(_ result: RunResult, outcome: String) {
        let events = self.events
        // Once the server has stopped, no stream is left to tell.
        try? server.submit { events.value.finished(result, outcome: outcome) }
    }

    package func stop() {
        server.stop()
    }

    /// The answer to `request`: pure but for `view`, so the routes are tested without a socket.
    package static func respond(
        to request: HTTPRequest, settings: Settings, view: () -> View,
        control: Control = { _, group throws(GroupCommandError) in
            throw GroupCommandError("no device group '\(group)'", isUnknownGroup: true)
        },
        events: EventHub? = nil
    ) -> HTTPResponse {
        // The probes answer without the token: the kubelet sends none, and they tell only
        // whether devsim is alive and ready.
        let isProbe = request.path == "/healthz" || request.path == "/readyz"
        if let token = settings.token, !isProbe, request.authorization != "Bearer " + token {
            return HTTPResponse(
                status: 401, text: "401 unauthorized: send Authorization: Bearer with the token of --http-token-file",
                headers: ["WWW-Authenticate": "Bearer"])
        }
        if request.path.hasPrefix("/api/groups/") { return command(request, control) }
        if request.path == "/api/events", request.method == "HEAD" {
            return HTTPResponse(status: 200, contentType: "text/event-stream; charset=utf-8", body: [])
        }
        if request.path == "/api/events", let events, request.method == "GET" {
            let view = view()
            var response = HTTPResponse(status: 200, contentType: "text/event-stream; charset=utf-8", body: events.opening(view))
            response.stream = events.subscribe(view)
            return response
        }
        let routes = ["/", "/metrics", "/healthz", "/readyz", "/api/status", "/api/events"]
        guard routes.contains(request.path) else {
            return HTTPResponse(
                status: 404,
                text: "404 not found: devsim serves \(routes.joined(separator: ", ")) and POST /api/groups/NAME/pause|resume|rate|scale")
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return HTTPResponse(status: 405, text: "405 method not allowed: \(request.path) takes GET", headers: ["Allow": "GET, HEAD"])
        }
        let view = view()
        switch request.path {
        case "/":
            return HTTPResponse(
                status: 200, contentType: "text/html; charset=utf-8",
                body: Array(LivePage.html(version: settings.version, testHand: settings.pageTestHand).utf8))
        case "/metrics":
            return HTTPResponse(
                status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8",
                body: Array(
                    MetricsText.render(view.live, shard: settings.shard, version: settings.version, startTime: settings.startTime).utf8))
        case "/healthz":
            let stuck = view.live.stuckLoops
            guard stuck.isEmpty else {
                return HTTPResponse(
                    status: 503, text: "unhealthy: event loop \(stuck.joined(separator: ", ")) has not answered for over 1 s")
            }
            return HTTPResponse(status: 200, text: "ok")
        case "/readyz":
            // Systemd's READY=1 follows the same rule (`Readiness`).
            let readiness = view.live.readiness
            let figures =
                "\(readiness.up)/\(readiness.all) connections up" + (readiness.paused > 0 ? ", \(readiness.paused) paused" : "")
                + " (\(Self.percentText(readiness.percent)) %)"
            return readiness.isReady(percent: settings.readyPercent)
                ? HTTPResponse(status: 200, text: "ready: " + figures)
                : HTTPResponse(status: 503, text: "not ready: \(figures), below --ready \(Self.percentText(settings.readyPercent)) %")
        case "/api/status":
            let json = (try? view.report().json()).map { Array($0) } ?? Array("{}\n".utf8)
            return HTTPResponse(status: 200, contentType: "application/json", body: json)
        default:
            return HTTPResponse(status: 404, text: "404 not found: \(request.path)")
        }
    }

    /// The body of `POST /api/groups/NAME/rate`.
    /// `POST /api/groups/NAME/pause`, `…/resume`, `…/rate` with `{"publish": "5/s"}` and `…/scale`
    /// with `{"count": 50}`. A
    /// browser's request from another site (its `Origin` is not this server) is refused: without a
    /// token any page the operator visits could otherwise send one.
    private static func command(_ request: HTTPRequest, _ control: Control) -> HTTPResponse {
        if let origin = request.origin, origin != "http://" + (request.host ?? "") {
            return HTTPResponse(status: 403, text: "403 forbidden: a command from another site (Origin \(origin))")
        }
        let rest = request.path.dropFirst("/api/groups/".count)
        guard let slash = rest.lastIndex(of: "/"), GroupCommand.names.contains(String(rest[rest.index(after: slash)...])),
            !rest[..<slash].isEmpty
        else {
            return HTTPResponse(status: 404, text: "404 not found: POST /api/groups/NAME/pause, …/resume, …/rate or …/scale")
        }
        guard request.method == "POST" else {
            return HTTPResponse(status: 405, text: "405 method not allowed: \(request.path) takes POST", headers: ["Allow": "POST"])
        }
        let group = String(rest[..<slash])
        let verb = String(rest[rest.index(after: slash)...])
        let arguments = (try? JSONDecoder().decode(GroupCommand.Arguments.self, from: Data(request.body))) ?? .init()
        do throws(GroupCommandError) {
            let command = try GroupCommand.parse(verb, arguments)
            let connections = try control(command, group)
            var json = "{\"group\":\(JSONText.quoted(group)),\"command\":\"\(command.name)\",\"connections\":\(connections)"
            if case .rate(let perSecond) = command { json += ",\"perSecond\":\(JSONText.number(perSecond))" }
            if case .scale(let count) = command { json += ",\"count\":\(count)" }
            return HTTPResponse(status: 200, contentType: "application/json", body: Array((json + "}\n").utf8))
        } catch {
            return HTTPResponse(status: error.isUnknownGroup ? 404 : 400, text: "\(error.isUnknownGroup ? 404 : 400) \(error.message)")
        }
    }

    private static func percentText(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value))" : "\((value * 10).rounded() / 10)"
    }
}
