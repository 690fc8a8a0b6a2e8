import Report
import Scenario
import Simulator

/// `devsim run`, in the library: prepares the run `options` asks for (the scenarios loaded and
/// the plan checked, each refusal a `RunCheckError`), runs it as a service group (the HTTP
/// endpoint with `--http`, the signals, systemd's notifications, then the fleet), and concludes
/// (the log's last lines, the report files, the `--expect` verdict, the capacity answer). A dry
/// run, and a shard with nothing to do, end once prepared. The command line parses, and exits
/// with the code `execute` returns.
package struct Run {
    package var options: RunOptions
    package var environment: [String: String]
    /// `0.1.0`, as the report and the service give it.
    package var version: String
    package var logger: Logger
    /// Standard output: the dry run's messages and the capacity answer.
    package var output: @Sendable (String) -> Void
    /// A scenario's problems, a diagnostic each: standard error.
    package var errors: @Sendable (String) -> Void
    /// Whether the run takes SIGINT, SIGTERM and SIGHUP, which are the process's: a test that
    /// runs it in-process leaves them to its runner. No flag reaches it.
    package var takesSignals = true

    package init(
        options: RunOptions, environment: [String: String], version: String, logger: Logger,
        output: @escaping @Sendable (String) -> Void = { Logger.write($0, toDescriptor: 1) },
        errors: @escaping @Sendable (String) -> Void = Logger.standardError
    ) {
        self.options = options
        self.environment = environment
        self.version = version
        self.logger = logger
        self.output = output
        self.errors = errors
    }

    package func execute() -> ExitCode {
        guard
            let scenarios = ScenarioFiles.load(
                options.scenarios, environment: environment, overridden: options.overriddenBrokerKeys, errors: errors)
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
            if let problem = OutputFile.problem(output.path) { throw RunCheckError("--report \(output.path): \(problem)") }
        }
        let planned = try settings()
        let plan = FleetPlan(scenarios: scenarios, settings: planned)
        guard ScenarioFiles.checkIDs(plan, errors: errors), ScenarioFiles.checkScripts(plan, errors: errors) else { return .usage }
        // A dry run reads no TLS file.
        guard options.dryRun || ScenarioFiles.checkTLSFiles(plan, errors: errors) else { return .usage }
        var lasting = lastingTheReplay(lastingTheStages(planned, of: plan), of: plan)
        for warning in plan.replayWarnings { logger.warning(warning) }
        lasting.capacity = try capacitySettings(plan)
        let settings = lasting
        if !options.dryRun { tellTheRamp(plan, settings: settings) }
        warnOfUnusedCredentials(in: scenarios, settings: settings)
        if let shard = plan.shard {
            logger.info("shard \(shard): \(plan.deviceCount) of the fleet's \(plan.fleetDeviceCount) devices")
            if plan.deviceCount == 0, plan.subscriberConnectionCount == 0 {
                return try endEmpty(shard, of: plan, scenarios: scenarios.map(\.name), seed: settings.seed)
            }
        }
        // An empty shard has returned: it has no connection a check could refuse.
        try RunChecks(dryRun: options.dryRun, expectations: options.expectations, reports: options.reports).check(plan, settings: settings)
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
        let service = try serviceSettings(shard: plan.shard)
        let fleet = try Fleet(plan: plan, settings: settings, logger: logger)
        return try run(fleet, plan: plan, scenarios: scenarios.map(\.name), seed: settings.seed, service: service)
    }

    /// Runs `fleet` in its group: the HTTP endpoint first, which stops last, once the run has
    /// concluded; the signals, which stop the fleet or reload it; systemd's notifications; then
    /// the fleet, on this thread.
    private func run(
        _ fleet: Fleet, plan: FleetPlan, scenarios: [String], seed: UInt64, service: DevsimService.Settings?
    ) throws -> ExitCode {
        let endpoint = service.map { HTTPEndpoint(settings: $0, fleet: fleet, scenarios: scenarios, seed: seed, logger: logger) }
        var members = endpoint.map { [ServiceGroup.Member($0, servesTheConclusion: true)] } ?? []
        if takesSignals { members.append(ServiceGroup.Member(SignalService())) }
        members.append(ServiceGroup.Member(SystemdService(fleet, readyPercent: options.readyPercent)))
        let group = ServiceGroup(members)
        let (files, environment, overridden) = (options.scenarios, environment, options.overriddenBrokerKeys)
        return try group.run(
            {
                logger.info(
                    "starting",
                    [
                        "scenarios": .string(scenarios.joined(separator: ",")),
                        "devices": .integer(plan.deviceCount), "connections": .integer(plan.connections.count),
                        // Text: a 64-bit seed is beyond the integers a JSON reader such as JavaScript keeps exactly.
                        "seed": "\(seed)",
                    ])
                return try fleet.run()
            },
            stop: { fleet.requestStop() },
            reload: { fleet.reload(files, environment: environment, overridden: overridden) },
            concluding: { conclude($0, plan: plan, scenarios: scenarios, seed: seed, endpoint: endpoint) })
    }

    /// More shards than devices: this one has nothing to do, which is not a failure. Its report
    /// says so, for the merge.
    private func endEmpty(_ shard: Shard, of plan: FleetPlan, scenarios: [String], seed: UInt64) throws -> ExitCode {
        logger.warning("shard \(shard) has none of the fleet's \(plan.fleetDeviceCount) devices; nothing to run")
        if !options.dryRun {
            var report = RunReport.empty(scenarios: scenarios, seed: seed)
            report.shard = shard
            for output in options.reports { try write(report, exitCode: .success, to: output) }
        }
        return .success
    }

    /// One `--report` file, in its format.
    func write(_ report: RunReport, exitCode: ExitCode, to output: ReportOutput) throws {
        try ReportFile.write(report, as: output.format, exitCode: exitCode.rawValue, to: output.path)
    }
}
