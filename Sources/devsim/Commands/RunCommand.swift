import Dispatch
import FoundationEssentials
import Glibc
import Mosquitto
import Report
import Scenario
import Service
import Simulator

/// `devsim run`: loads the scenarios, then either prints a dry run or runs the fleet against the
/// broker until its end, and writes the report.
struct RunCommand {
    var options: RunOptions
    var environment: [String: String]
    var logger: Logger

    func execute() -> ExitCode {
        guard
            let scenarios = ScenarioFiles.load(
                options.scenarios, environment: environment, overridden: options.overriddenBrokerKeys,
                errors: Logger.standardError)
        else { return .usage }
        do {
            return try execute(scenarios)
        } catch {
            return .after(error, logger: logger)
        }
    }

    private func execute(_ scenarios: [Scenario]) throws -> ExitCode {
        // Found now, not after the run it would have reported.
        for output in options.dryRun ? [] : options.reports {
            if let problem = OutputFile.problem(output.path) { throw UsageError("--report \(output.path): \(problem)") }
        }
        let planned = try settings()
        let plan = FleetPlan(scenarios: scenarios, settings: planned)
        guard ScenarioFiles.checkIDs(plan, errors: Logger.standardError), ScenarioFiles.checkScripts(plan, errors: Logger.standardError)
        else { return .usage }
        // A dry run reads no TLS file.
        guard options.dryRun || ScenarioFiles.checkTLSFiles(plan, errors: Logger.standardError) else { return .usage }
        var lasting = lastingTheReplay(lastingTheStages(planned, of: plan), of: plan)
        for warning in plan.replayWarnings { logger.warning(warning) }
        lasting.capacity = try capacitySettings(plan)
        let settings = lasting
        if !options.dryRun { tellTheRamp(plan, settings: settings) }
        warnOfUnusedCredentials(in: scenarios, settings: settings)
        if let shard = plan.shard {
            logger.info("shard \(shard): \(plan.deviceCount) of the fleet's \(plan.fleetDeviceCount) devices")
            if plan.deviceCount == 0, plan.subscriberConnectionCount == 0 {
                // More shards than devices: this one has nothing to do, which is not a failure.
                logger.warning("shard \(shard) has none of the fleet's \(plan.fleetDeviceCount) devices; nothing to run")
                if !options.dryRun {
                    var report = RunReport.empty(scenarios: scenarios.map(\.name), seed: settings.seed)
                    report.shard = shard
                    for output in options.reports { try writeReport(report, exitCode: .success, to: output) }
                }
                return .success
            }
        }
        // An empty shard has returned: it has no connection a check could refuse.
        let checks = RunChecks(dryRun: options.dryRun, expectations: options.expectations, reports: options.reports)
        try UsageError.of { () throws(RunCheckError) in try checks.check(plan, settings: settings) }
        if options.dryRun {
            if !options.expectations.isEmpty {
                logger.warning(
                    "dry run: --expect ignored, nothing is measured without a broker (\(Text.counted(options.expectations.count, "assertion")))"
                )
            }
            return dryRun(plan, seed: settings.seed, duration: settings.duration)
        }
        if options.reports.isEmpty, options.reportFormat != .json {
            logger.warning("--report-format \(options.reportFormat.rawValue) has no effect without --report FILE")
        }
        let serviceSettings = try Self.serviceSettings(options, shard: plan.shard)
        let fleet = try Fleet(plan: plan, settings: settings, logger: logger)
        let service = try serviceSettings.map { serviceSettings throws(UsageError) in
            try startService(serviceSettings, fleet: fleet, scenarios: scenarios.map(\.name), seed: settings.seed)
        }
        defer { service?.stop() }
        logger.info(
            "starting",
            [
                "scenarios": .string(scenarios.map(\.name).joined(separator: ",")),
                "devices": .integer(plan.deviceCount), "connections": .integer(plan.connections.count),
                // Text: a 64-bit seed is beyond the integers a JSON reader such as JavaScript keeps exactly.
                "seed": "\(settings.seed)",
            ])
        let notifier = SystemdNotifier()
        let signals = SignalHandling.install(onFirst: { fleet.requestStop() }) { [self] in
            notifier.reloading()
            let done = fleet.reload(options.scenarios, environment: environment, overridden: options.overriddenBrokerKeys)
            service?.noteReload(done)
            notifier.reloaded()
        }
        let systemd = notifier.follow(fleet, readyPercent: options.readyPercent)
        let result = try fleet.run()
        systemd?.cancel()
        withExtendedLifetime(signals) {}
        logger.info("finished: " + summary(result))
        if let line = result.connectTimings.line { logger.info("connect times: " + line) }
        for group in result.subscribers { logger.info(group.logLine) }
        for host in result.hosts { logger.info(host.logLine) }
        if let warning = result.neverConnectedWarning { logger.warning(warning) }
        var report = RunReport(result: result, scenarios: scenarios.map(\.name), seed: settings.seed)
        report.shard = plan.shard
        service?.noteFinished(result, outcome: report.outcome)
        var code = ExitCode.success
        if !options.expectations.isEmpty {
            let verdicts = options.expectations.map { $0.evaluate(report) }
            report.expectations = verdicts
            code = judge(verdicts)
        }
        if let capacity = result.capacity, tell(capacity) == .expectationFailed { code = .expectationFailed }
        if case .noConnection(let why) = result.reason {
            logger.error(why)
            code = .noConnection  // no connection says more than the assertions it broke
        }
        // Each file on its own: one that cannot be written keeps none of the others from it.
        var unwritten: [String] = []
        for output in options.reports {
            do {
                try writeReport(report, exitCode: code, to: output)
            } catch {
                unwritten.append("\(error)")
            }
        }
        if let warning = result.verify?.warning { logger.warning(warning) }
        if !unwritten.isEmpty {
            // Last, where a CI log is read first; the run's own verdict, when it failed, says
            // more than the missing file and keeps its exit code.
            let verdict =
                code == .success
                ? "the run itself ended as asked; exit 1 says the report is missing"
                : "the run's verdict is in this log and in the exit code, \(code.rawValue) (\(code.words))"
            logger.error("the report was not written: \(unwritten.joined(separator: "; ")); " + verdict)
            if code == .success { code = .failure }
        }
        return code
    }

    /// The command line's user name and password are every device's, over a credentials file's.
    private func warnOfUnusedCredentials(in scenarios: [Scenario], settings: RunSettings) {
        let given = [(settings.username ?? settings.url?.username, CredentialsFile.Column.username), (settings.password, .password)]
            .compactMap {
                $0.0 == nil ? nil : $0.1
            }
        for file in scenarios.compactMap(\.broker.credentials) {
            let unused = given.filter(file.columns.contains).map(\.rawValue)
            guard !unused.isEmpty else { continue }
            let plural = unused.count > 1
            logger.warning(
                "the command line gives every device's \(unused.joined(separator: " and ")), so the "
                    + "\(unused.map { "'\($0)'" }.joined(separator: " and ")) column\(plural ? "s" : "") of \(file.path) "
                    + "\(plural ? "go" : "goes") unused")
        }
    }

    /// Says how long the connections take to open when that is long enough to notice
    /// (`FleetPlan.ramp`), and warns when the run ends before the last of them opens.
    private func tellTheRamp(_ plan: FleetPlan, settings: RunSettings) {
        guard let (connections, last) = plan.ramp else { return }
        logger.info(
            "the \(Text.counted(connections, "connection")) open over \(formatSeconds(last)) "
                + "(rampUp; the groups without one share \(Int(Defaults.rampUp))/s)")
        if let duration = settings.duration, duration < Durations.duration(seconds: last) {
            logger.warning(
                "the run ends after \(formatSeconds(duration)), before its last connections open at \(formatSeconds(last)): "
                    + "raise rampUp, or --duration")
        }
    }

    /// The run's settings, lasting its stages when nothing else ends it
    /// (`RunSettings.lastingTheStages`), which the log says.
    private func lastingTheStages(_ settings: RunSettings, of plan: FleetPlan) -> RunSettings {
        guard let (lasting, stages) = settings.lastingTheStages(of: plan) else { return settings }
        logger.info("the run lasts its \(Text.counted(stages.count, "stage")): \(formatSeconds(stages.seconds))")
        return lasting
    }

    /// A fleet that replays recordings once each ends when all is sent, by the `--messages`
    /// budget of every message, when `--duration` does not end it, nor a smaller `--messages`
    /// (a larger one would never be spent); the log says so.
    private func lastingTheReplay(_ settings: RunSettings, of plan: FleetPlan) -> RunSettings {
        guard settings.duration == nil, let messages = plan.replayedMessages else { return settings }
        if let asked = settings.messages, asked <= messages { return settings }
        var lasting = settings
        lasting.messages = messages
        if !options.dryRun {
            logger.info(
                "the run ends when its recordings are replayed: \(Text.counted(messages, "message")) (no loop: true)"
                    + (settings.messages.map { ", fewer than --messages \($0)" } ?? ""))
        }
        return lasting
    }

    /// `--http`, `--http-token-file` and `--ready` as the service's settings; nil without `--http`.
    /// Off loopback the token is required: the endpoint can pause and reshape the fleet.
    static func serviceSettings(_ options: RunOptions, shard: Shard?) throws(UsageError) -> DevsimService.Settings? {
        guard let address = options.http else {
            if options.httpTokenFile != nil { throw UsageError("--http-token-file needs --http ADDR:PORT, which it guards") }
            return nil
        }
        var token: String?
        if let file = options.httpTokenFile {
            token = try UsageError.of { () throws(RunCheckError) in try CredentialFiles.token(at: file) }
        } else if !address.isLoopback {
            throw UsageError(
                "--http \(address) listens beyond this machine: give --http-token-file FILE, whose token every request must carry "
                    + "(Authorization: Bearer), or listen on loopback (--http \(address.port))")
        }
        return DevsimService.Settings(
            address: address, token: token, readyPercent: options.readyPercent, version: Help.versionNumber, shard: shard,
            startTime: Date().timeIntervalSince1970)
    }

    private func startService(_ settings: DevsimService.Settings, fleet: Fleet, scenarios: [String], seed: UInt64) throws(UsageError)
        -> DevsimService
    {
        do {
            let service = try DevsimService(settings: settings, fleet: fleet, scenarios: scenarios, seed: seed)
            var address = settings.address
            address.port = service.port
            logger.info(
                "serving http://\(address)/metrics, /healthz, /readyz, /api/status and POST /api/groups/NAME/pause|resume|rate|scale")
            return service
        } catch {
            throw UsageError("--http: \(error.message)")
        }
    }

    /// Logs each verdict (a failure as an error, so `--quiet` still shows it) and a summary
    /// naming what failed; exit 4 if anything did.
    private func judge(_ verdicts: [Verdict]) -> ExitCode {
        for verdict in verdicts {
            logger.log(verdict.passed ? .info : .error, verdict.logLine)
        }
        let failed = verdicts.filter { !$0.passed }
        guard !failed.isEmpty else {
            logger.info("expectations: all \(verdicts.count) passed")
            return .success
        }
        logger.error("expectations: \(failed.count) of \(verdicts.count) failed: " + failed.map(\.assertion).joined(separator: ", "))
        return .expectationFailed
    }

    private func settings() throws -> RunSettings {
        var password = options.password
        if let file = options.passwordFile {
            password = try UsageError.of { () throws(RunCheckError) in try CredentialFiles.password(at: file) }
        }
        if options.url != nil, options.host != nil || options.port != nil {
            throw UsageError(
                "--url gives the host and the port: leave out \(options.host != nil ? "--host" : "--port") "
                    + "(and DEVSIM_HOST, DEVSIM_PORT), or --url (DEVSIM_URL)")
        }
        var settings = RunSettings(
            host: options.host, port: options.port, username: options.username, password: password,
            duration: options.duration, messages: options.messages,
            seed: options.seed ?? UInt64.random(in: 0...UInt64.max),
            loops: options.loops ?? ProcessInfo.processInfo.activeProcessorCount,
            connectTimeout: options.connectTimeout, connackTimeout: options.connackTimeout, drainTimeout: options.drainTimeout,
            statsInterval: options.quiet ? nil : options.statsInterval, maxInFlight: options.maxInFlight,
            logConnectionEvents: options.verbose)
        if Self.redrawsStatus(options) { settings.liveStatus = Logger.standardError }
        settings.timelineInterval = options.timelineInterval
        settings.verify = options.verify
        settings.anonymous = options.anonymous
        settings.retryRefused = options.retryRefused
        settings.discoveryCleanup = options.discoveryCleanup
        settings.version = Help.versionNumber
        settings.mqttProtocol = options.mqttProtocol
        settings.shard = options.shard
        settings.ackTimeout = options.ackTimeout
        settings.url = options.url
        settings.hosts = options.urlHosts
        settings.bind = options.bind
        return settings
    }

    /// Whether the status line is one line redrawn in place: on a terminal, for text logs, unless
    /// `--quiet` or `--stats-interval 0` asked for none. In CI (no terminal) it is a plain line
    /// every `--stats-interval`.
    static func redrawsStatus(_ options: RunOptions) -> Bool {
        isatty(2) != 0 && !options.quiet && options.statsInterval != nil && options.logFormat == .text && !options.dryRun
    }

    private func dryRun(_ plan: FleetPlan, seed: UInt64, duration: Duration?) -> ExitCode {
        var duration = duration
        if duration == nil, options.messages == nil, plan.replayedMessages == nil {
            duration = .seconds(10)
            logger.info("dry run without --duration or --messages: showing the first 10 seconds")
        }
        if options.seed == nil {
            logger.info("dry run with seed \(seed); --seed \(seed) shows these values again")
        }
        if !plan.subscribers.isEmpty {
            // A dry run shows what would be published; a subscriber receives only from a broker.
            logger.info(
                "dry run: " + Text.counted(plan.subscribers.count, "subscriber group") + " not run without a broker: "
                    + plan.subscribers.map {
                        "'\($0.name)' (\(Text.counted($0.members.count, "connection")) on "
                            + $0.filters.map(\.text).joined(separator: ", ") + ")"
                    }.joined(separator: ", "))
        }
        // Who each group's devices would be on the broker, by its first: never a secret.
        for device in Sample.firstDevicePlans(of: plan) {
            guard let connection = plan.connections.first(where: { $0.devices.contains { $0.id == device.id } }),
                let identity = ConnectionIdentity.text(of: connection, in: plan)
            else { continue }
            let first = device.sparkplug.map { "edge node \($0.topic.edgeNodeID)" } ?? "device"
            logger.info("dry run: device group '\(device.group)' would connect its first \(first) as \(identity)")
        }
        var chunk = ""
        DryRun(plan: plan, seed: seed, duration: duration, messages: options.messages, logger: logger).run { line in
            chunk += line
            if chunk.utf8.count > 64 * 1024 {
                write(chunk, to: .standardOutput)
                chunk = ""
            }
        }
        write(chunk, to: .standardOutput)
        return .success
    }

    private func summary(_ result: RunResult) -> String {
        let t = result.totals
        return Figure.line(t.figures) + (result.verify.map { "; verify: " + $0.line } ?? "")
    }

    /// One `--report` file, in its format.
    private func writeReport(_ report: RunReport, exitCode: ExitCode, to output: ReportOutput) throws {
        try ReportFile.write(report, as: output.format, exitCode: exitCode.rawValue, to: output.path)
    }
}
