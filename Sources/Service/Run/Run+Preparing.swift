import FoundationEssentials
import Report
import Scenario
import Simulator

/// What a run reads, checks and says before anything connects.
extension Run {
    /// The fleet's settings from the options: the password file read, `--url` not beside
    /// `--host` or `--port`.
    func settings() throws(RunCheckError) -> RunSettings {
        var password = options.password
        if let file = options.passwordFile { password = try CredentialFiles.password(at: file) }
        try RunChecks.checkBroker(url: options.url, host: options.host, port: options.port)
        var settings = RunSettings(
            host: options.host, port: options.port, username: options.username, password: password,
            duration: options.duration, messages: options.messages,
            seed: options.seed ?? UInt64.random(in: 0...UInt64.max),
            loops: options.loops ?? ProcessInfo.processInfo.activeProcessorCount,
            connectTimeout: options.connectTimeout, connackTimeout: options.connackTimeout, drainTimeout: options.drainTimeout,
            statsInterval: options.quiet ? nil : options.statsInterval, maxInFlight: options.maxInFlight,
            logConnectionEvents: options.verbose)
        if options.redrawsStatus { settings.liveStatus = Logger.standardError }
        settings.timelineInterval = options.timelineInterval
        settings.verify = options.verify
        settings.anonymous = options.anonymous
        settings.retryRefused = options.retryRefused
        settings.discoveryCleanup = options.discoveryCleanup
        settings.version = version
        settings.mqttProtocol = options.mqttProtocol
        settings.shard = options.shard
        settings.ackTimeout = options.ackTimeout
        settings.url = options.url
        settings.hosts = options.urlHosts
        settings.bind = options.bind
        return settings
    }

    /// The run's settings, lasting its stages when nothing else ends it
    /// (`RunSettings.lastingTheStages`), which the log says.
    func lastingTheStages(_ settings: RunSettings, of plan: FleetPlan) -> RunSettings {
        guard let (lasting, stages) = settings.lastingTheStages(of: plan) else { return settings }
        logger.info("the run lasts its \(Text.counted(stages.count, "stage")): \(formatSeconds(stages.seconds))")
        return lasting
    }

    /// A fleet that replays recordings once each ends when all is sent, by the `--messages`
    /// budget of every message, when `--duration` does not end it, nor a smaller `--messages`
    /// (a larger one would never be spent); the log says so.
    func lastingTheReplay(_ settings: RunSettings, of plan: FleetPlan) -> RunSettings {
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

    /// Says how long the connections take to open when that is long enough to notice
    /// (`FleetPlan.ramp`), and warns when the run ends before the last of them opens.
    func tellTheRamp(_ plan: FleetPlan, settings: RunSettings) {
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

    /// The command line's user name and password are every device's, over a credentials file's.
    func warnOfUnusedCredentials(in scenarios: [Scenario], settings: RunSettings) {
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

    /// The search `--find-capacity`, `--slo`, `--step` and `--warmup` ask of a run of `plan`
    /// (`CapacityRequest`), said in the log; `nil` without `--find-capacity`. A search the fleet
    /// cannot carry out is refused before anything connects.
    func capacitySettings(_ plan: FleetPlan) throws(RunCheckError) -> CapacitySettings? {
        let request = CapacityRequest(
            find: options.findCapacity, slos: options.slos, step: options.capacityStep, warmUp: options.capacityWarmUp)
        guard let settings = try request.settings(for: plan, dryRun: options.dryRun, messages: options.messages, verify: options.verify)
        else { return nil }
        let slos: String = options.slos.map(\.text).joined(separator: ", ")
        let within = Int(CapacitySearch.defaultResolution * 100)
        let timing = "each step \(formatSeconds(settings.warmUp)) of warm-up, then \(formatSeconds(settings.step)) measured"
        logger.info(
            "capacity: from \(Assertion.number(settings.baseRatePerSecond))/s, doubling while every step meets \(slos), then "
                + "bisecting to within \(within) %; \(timing)")
        return settings
    }

    /// `--http`, `--http-token-file` and `--ready` as the service's settings; nil without `--http`.
    /// Off loopback the token is required: the endpoint can pause and reshape the fleet.
    func serviceSettings(shard: Shard?) throws(RunCheckError) -> DevsimService.Settings? {
        guard let address = options.http else {
            if options.httpTokenFile != nil { throw RunCheckError("--http-token-file needs --http ADDR:PORT, which it guards") }
            return nil
        }
        var token: String?
        if let file = options.httpTokenFile {
            token = try CredentialFiles.token(at: file)
        } else if !address.isLoopback {
            throw RunCheckError(
                "--http \(address) listens beyond this machine: give --http-token-file FILE, whose token every request must carry "
                    + "(Authorization: Bearer), or listen on loopback (--http \(address.port))")
        }
        return DevsimService.Settings(
            address: address, token: token, readyPercent: options.readyPercent, version: version, shard: shard,
            startTime: Date().timeIntervalSince1970)
    }
}
