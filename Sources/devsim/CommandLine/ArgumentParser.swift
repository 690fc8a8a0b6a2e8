import MQTT
import Report
import Scenario
import Service
import Simulator

/// Turns `devsim`'s arguments and environment into a `Command`. Every `run` option can also come
/// from a `DEVSIM_*` variable; the flag wins. Errors name the flag or the variable.
enum ArgumentParser {
    /// A flag of a command whose options are a `Target` (`RunOptions`, `RecordOptions`).
    struct Option<Target>: Sendable {
        let flag: String
        let variable: String
        let valueName: String?
        let help: String
        /// Given several times, every value counts (in order); otherwise the last one wins.
        var repeatable = false
        let apply: @Sendable (inout Target, String, String) throws(UsageError) -> Void

        init(
            flag: String, variable: String, valueName: String?, help: String, repeatable: Bool = false,
            apply: @escaping @Sendable (inout Target, String, String) throws(UsageError) -> Void
        ) {
            self.flag = flag
            self.variable = variable
            self.valueName = valueName
            self.help = help
            self.repeatable = repeatable
            self.apply = apply
        }
    }

    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> Command {
        guard let first = arguments.first else { return .missingCommand }
        let rest = Array(arguments.dropFirst())
        guard let command = CommandName(word: first) else {
            let hint = Suggestion.closest(to: first, among: CommandName.allCases.map(\.rawValue)).map { "did you mean '\($0)'?" }
            throw UsageError("unknown command '\(first)'; " + (hint ?? "the commands are \(CommandName.listed)"))
        }
        switch command {
        case .help:
            return .help(topic: rest.first)
        case .version:
            return .version
        case .validate:
            if rest.contains("--help") || rest.contains("-h") { return .help(topic: "validate") }
            if let flag = rest.first(where: { $0.hasPrefix("-") }) {
                throw UsageError("validate: unknown option '\(flag)'")
            }
            guard !rest.isEmpty else { throw UsageError("validate: name at least one scenario file") }
            return .validate(rest)
        case .run:
            if rest.contains("--help") || rest.contains("-h") { return .help(topic: "run") }
            return .run(try pointing(to: "run") { () throws(UsageError) in try parseRun(rest, environment: environment) })
        case .record:
            if rest.contains("--help") || rest.contains("-h") { return .help(topic: "record") }
            return .record(try pointing(to: "record") { () throws(UsageError) in try parseRecord(rest, environment: environment) })
        case .sample:
            if rest.contains("--help") || rest.contains("-h") { return .help(topic: "sample") }
            return .sample(try pointing(to: "sample") { () throws(UsageError) in try parseSample(rest) })
        case .report:
            if rest.isEmpty || rest.contains("--help") || rest.contains("-h") { return .help(topic: "report") }
            return try pointing(to: "report") { () throws(UsageError) in try parseReport(rest) }
        }
    }

    /// `parse()`'s result, its mistakes pointing to `devsim COMMAND --help`.
    private static func pointing<T>(to command: String, _ parse: () throws(UsageError) -> T) throws(UsageError) -> T {
        do {
            return try parse()
        } catch {
            var error = error
            error.command = error.command ?? command
            throw error
        }
    }

    /// `sample [--count N] [--for DURATION] [--seed N] SCENARIO...`.
    static func parseSample(_ arguments: [String]) throws(UsageError) -> SampleOptions {
        let (allValues, scenarios) = try split(arguments, command: "sample", flags: sampleFlags)
        let values = allValues.compactMapValues(\.last)
        var options = SampleOptions()
        options.scenarios = scenarios
        if let text = values["--for"] {
            options.span = try duration(text, "--for", allowZero: false)
            // Only a count given beside it bounds a span.
            options.count = nil
        }
        if let text = values["--count"] {
            guard let count = Int(text), (1...10_000).contains(count) else {
                throw UsageError(
                    "--count: expected a whole number from 1 to 10000, found '\(text)'; --for DURATION covers a longer stretch")
            }
            options.count = count
        }
        if let text = values["--seed"] {
            guard let seed = UInt64(text) else {
                throw UsageError("--seed: expected a whole number from 0 to \(UInt64.max), found '\(text)'")
            }
            options.seed = seed
        }
        guard !options.scenarios.isEmpty else { throw UsageError("sample: name at least one scenario file") }
        return options
    }

    /// Splits `arguments` into flag values (`--flag value` or `--flag=value`; `"true"` for a flag
    /// whose value name is `nil`), every value of a flag given more than once in order, and the
    /// other arguments, which are files; `--` ends the flags.
    static func split(_ arguments: [String], command: String, flags: [(flag: String, valueName: String?)])
        throws(UsageError) -> (values: [String: [String]], files: [String])
    {
        var values: [String: [String]] = [:]
        var files: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                files += arguments[index...]
                break
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                files.append(argument)
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let flag = flags.first(where: { $0.flag == name }) else {
                let hint = Suggestion.closest(to: name, among: flags.map(\.flag)).map { "; did you mean \($0)?" } ?? ""
                throw UsageError("\(command): unknown option '\(name)'\(hint)")
            }
            if flag.valueName == nil {
                guard inlineValue == nil else { throw UsageError("\(name) takes no value") }
                values[name, default: []].append("true")
            } else if let inlineValue {
                values[name, default: []].append(inlineValue)
            } else {
                guard index < arguments.count else { throw UsageError("\(name) needs a value (\(flag.valueName!))") }
                values[name, default: []].append(arguments[index])
                index += 1
            }
        }
        return (values, files)
    }

    static let sampleFlags: [(flag: String, valueName: String?)] = [("--count", "N"), ("--for", "DURATION"), ("--seed", "N")]

    static func parseRun(_ arguments: [String], environment: [String: String]) throws(UsageError) -> RunOptions {
        let (fromFlags, scenarios) = try split(arguments, command: "run", flags: runOptions.map { ($0.flag, $0.valueName) })
        var options = RunOptions()
        options.scenarios = scenarios
        for option in runOptions {
            if let values = fromFlags[option.flag], let last = values.last {
                for value in option.repeatable ? values : [last] {
                    try option.apply(&options, value, option.flag)
                }
            } else if let value = environment[option.variable], !value.isEmpty {
                try option.apply(&options, value, option.variable)
            }
        }
        if options.shard == nil, let count = environment["DEVSIM_SHARDS"], !count.isEmpty {
            // A Kubernetes Indexed Job: the pod's index, and the Job's completions passed on.
            guard let index = environment["JOB_COMPLETION_INDEX"], !index.isEmpty else {
                throw UsageError(
                    "DEVSIM_SHARDS is set but JOB_COMPLETION_INDEX is not (it is set in the pods of an Indexed Job); "
                        + "outside one, use --shard K/N or DEVSIM_SHARD")
            }
            do throws(ShardError) {
                options.shard = try Shard.parse(index: index, count: count)
            } catch {
                throw UsageError("JOB_COMPLETION_INDEX/DEVSIM_SHARDS: \(error.message)")
            }
        }
        if !options.reports.isEmpty {
            // Each file's format, now that --report-format, wherever it stood, is known.
            let formatFlag = fromFlags["--report-format"] != nil
            let formatGiven = formatFlag || !(environment["DEVSIM_REPORT_FORMAT"] ?? "").isEmpty
            options.reports = try ReportFormat.forReports(
                options.reports.map(\.path), pathLabel: fromFlags["--report"] != nil ? "--report" : "DEVSIM_REPORT",
                given: formatGiven ? options.reportFormat : nil, givenLabel: formatFlag ? "--report-format" : "DEVSIM_REPORT_FORMAT")
        }
        if options.password != nil, options.passwordFile != nil, fromFlags["--password-file"] == nil {
            // DEVSIM_PASSWORD and DEVSIM_PASSWORD_FILE both set: the password itself wins.
            options.passwordFile = nil
        }
        if options.anonymous {
            // Flags that say the opposite are a mistake; credentials in the environment give way.
            if let flag = ["--username", "--password-file"].first(where: { fromFlags[$0] != nil }) {
                throw UsageError("--anonymous leaves out every user name and password; it cannot go with \(flag)")
            }
            (options.username, options.password, options.passwordFile) = (nil, nil, nil)
        }
        guard !options.scenarios.isEmpty else { throw UsageError("run: name at least one scenario file") }
        return options
    }

    static let runOptions: [Option<RunOptions>] = [
        Option(
            flag: "--url", variable: "DEVSIM_URL", valueName: "URL",
            help: "the broker as a URL: mqtt://HOST:PORT, mqtts://…, ws://HOST:PORT/PATH, wss://… (overrides the scenario); "
                + "a comma list for a cluster's nodes, as broker.hosts"
        ) { o, v, label throws(UsageError) in
            (o.url, o.urlHosts) = try urls(v, label: label)
        },
        Option(
            flag: "--bind", variable: "DEVSIM_BIND", valueName: "ADDR[,ADDR…]",
            help: "local source addresses to connect from, in turn (over the scenario's broker.bind)"
        ) { o, v, label throws(UsageError) in
            o.bind = try bindAddresses(v, label: label)
        },
        Option(flag: "--host", variable: "DEVSIM_HOST", valueName: "HOST", help: "broker host name or address") {
            o, v, label throws(UsageError) in
            if let problem = BrokerHost.problem(with: v) { throw UsageError("\(label): \(problem)") }
            o.host = v
        },
        Option(flag: "--port", variable: "DEVSIM_PORT", valueName: "PORT", help: "broker port") { o, v, label throws(UsageError) in
            guard let port = Int(v), (1...65535).contains(port) else {
                throw UsageError("\(label): expected a port number from 1 to 65535, found '\(v)'")
            }
            o.port = port
        },
        Option(
            flag: "--protocol", variable: "DEVSIM_PROTOCOL", valueName: "mqtt31|mqtt311|mqtt5",
            help: "MQTT version (overrides the scenario)"
        ) { o, v, label throws(UsageError) in
            guard let version = ProtocolVersion(name: v) else {
                let hint = Suggestion.closest(to: v, among: ProtocolVersion.allCases.map(\.name)).map { "; did you mean \($0)?" } ?? ""
                throw UsageError("\(label): expected mqtt31, mqtt311 or mqtt5, found '\(v)'\(hint)")
            }
            o.mqttProtocol = version
        },
        Option(flag: "--username", variable: "DEVSIM_USERNAME", valueName: "NAME", help: "user name for the broker") { o, v, _ in
            o.username = v
        },
        Option(
            flag: "--anonymous", variable: "DEVSIM_ANONYMOUS", valueName: nil, help: "connect without the scenario's user name and password"
        ) { o, v, label throws(UsageError) in
            o.anonymous = try flag(v, label)
        },
        Option(
            flag: "--retry-refused", variable: "DEVSIM_RETRY_REFUSED", valueName: nil,
            help: "keep trying when the broker refuses every connection's credentials (default: exit 3 at once)"
        ) { o, v, label throws(UsageError) in
            o.retryRefused = try flag(v, label)
        },
        Option(
            flag: "--discovery-cleanup", variable: "DEVSIM_DISCOVERY_CLEANUP", valueName: nil,
            help: "a clean end deletes the entities the devices announced to Home Assistant (discovery:)"
        ) { o, v, label throws(UsageError) in
            o.discoveryCleanup = try flag(v, label)
        },
        Option(
            flag: "--password-file", variable: "DEVSIM_PASSWORD_FILE", valueName: "FILE",
            help: "file holding the password (DEVSIM_PASSWORD holds the password itself)"
        ) { o, v, _ in o.passwordFile = v },
        Option(flag: "--password", variable: "DEVSIM_PASSWORD", valueName: "PASSWORD", help: "") { o, v, label throws(UsageError) in
            guard label == "DEVSIM_PASSWORD" else {
                throw UsageError("--password would show the password to every user of this machine; use --password-file or DEVSIM_PASSWORD")
            }
            o.password = v
        },
        Option(flag: "--duration", variable: "DEVSIM_DURATION", valueName: "DURATION", help: "stop after this long: 30s, 5m, 1h") {
            o, v, label throws(UsageError) in
            o.duration = try duration(v, label, allowZero: false)
        },
        Option(flag: "--messages", variable: "DEVSIM_MESSAGES", valueName: "N", help: "stop after N ticks over the whole fleet") {
            o, v, label throws(UsageError) in
            guard let n = Int(v), n > 0 else { throw UsageError("\(label): expected a whole number above 0, found '\(v)'") }
            o.messages = n
        },
        Option(
            flag: "--seed", variable: "DEVSIM_SEED", valueName: "N",
            help: "seed for reproducible values (default: random, recorded in the report)"
        ) { o, v, label throws(UsageError) in
            guard let seed = UInt64(v) else { throw UsageError("\(label): expected a whole number from 0 to \(UInt64.max), found '\(v)'") }
            o.seed = seed
        },
        Option(
            flag: "--shard", variable: "DEVSIM_SHARD", valueName: "K/N",
            help: "run shard K (from 0) of N disjoint slices of the devices; default JOB_COMPLETION_INDEX/DEVSIM_SHARDS"
        ) { o, v, label throws(UsageError) in
            do throws(ShardError) {
                o.shard = try Shard.parse(v)
            } catch {
                throw UsageError("\(label): \(error.message)")
            }
        },
        Option(
            flag: "--report", variable: "DEVSIM_REPORT", valueName: "FILE",
            help: "write the report here on exit, in the format its extension names: .json, .xml (JUnit), .csv, .html; else JSON "
                + "(repeatable: each file in its format)", repeatable: true
        ) { o, v, _ in
            o.reports.append(ReportOutput(path: v, format: .json))  // its format once all flags are read
        },
        Option(
            flag: "--report-format", variable: "DEVSIM_REPORT_FORMAT", valueName: "json|junit|csv|html",
            help: "the format of every --report, whatever its name: JSON, JUnit XML (one test case per --expect), the timeline "
                + "as CSV, or a page of charts; needed only for a name with no known extension, and one a name contradicts is refused"
        ) { o, v, label throws(UsageError) in
            guard let format = ReportFormat(rawValue: v) else {
                throw UsageError("\(label): expected json, junit, csv or html, found '\(v)'")
            }
            o.reportFormat = format
        },
        Option(
            flag: "--expect", variable: "DEVSIM_EXPECT", valueName: "ASSERTION",
            help: "fail the run (exit 4) unless this holds: p99<50ms, lateness.p99<5ms, acked>=99.9% (repeatable)", repeatable: true
        ) { o, v, label throws(UsageError) in
            do throws(AssertionError) {
                o.expectations += try Assertion.list(v)
            } catch {
                throw UsageError("\(label) '\(v)': \(error.message)")
            }
        },
        Option(
            flag: "--find-capacity", variable: "DEVSIM_FIND_CAPACITY", valueName: nil,
            help: "step the fleet's rate up (doubling, then bisecting) and report the highest that met every --slo"
        ) { o, v, label throws(UsageError) in
            o.findCapacity = try flag(v, label)
        },
        Option(
            flag: "--slo", variable: "DEVSIM_SLO", valueName: "ASSERTION",
            help:
                "with --find-capacity, what each step must meet: lateness.p99<5ms, p99<50ms, rate>=99.9%, lost==0 with --verify (repeatable)",
            repeatable: true
        ) { o, v, label throws(UsageError) in
            do throws(AssertionError) {
                o.slos += try Assertion.list(v, parse: Assertion.slo)
            } catch {
                throw UsageError("\(label) '\(v)': \(error.message)")
            }
        },
        Option(
            flag: "--step", variable: "DEVSIM_STEP", valueName: "DURATION",
            help: "with --find-capacity, how long each step is measured (default \(Defaults.capacityStep.components.seconds)s)"
        ) { o, v, label throws(UsageError) in
            o.capacityStep = try duration(v, label, allowZero: false)
        },
        Option(
            flag: "--warmup", variable: "DEVSIM_WARMUP", valueName: "DURATION",
            help:
                "with --find-capacity, each step's time at its rate before it is measured (default \(Defaults.capacityWarmUp.components.seconds)s)"
        ) { o, v, label throws(UsageError) in
            o.capacityWarmUp = try duration(v, label, allowZero: true)
        },
        Option(
            flag: "--dry-run", variable: "DEVSIM_DRY_RUN", valueName: nil,
            help: "no broker: print what would be published, one JSON object a line, its virtual time in \"at\" (+HH:MM:SS.mmm)"
        ) { o, v, label throws(UsageError) in
            o.dryRun = try flag(v, label)
        },
        Option(flag: "--log-format", variable: "DEVSIM_LOG_FORMAT", valueName: "text|json", help: "log line format (default text)") {
            o, v, label throws(UsageError) in
            guard let format = Logger.Format(rawValue: v) else { throw UsageError("\(label): expected text or json, found '\(v)'") }
            o.logFormat = format
        },
        Option(
            flag: "--connect-timeout", variable: "DEVSIM_CONNECT_TIMEOUT", valueName: "DURATION",
            help: "give up (exit 3) if no connection is accepted within this (default \(Defaults.connectTimeout.components.seconds)s)"
        ) { o, v, label throws(UsageError) in
            o.connectTimeout = try duration(v, label, allowZero: false)
        },
        Option(
            flag: "--connack-timeout", variable: "DEVSIM_CONNACK_TIMEOUT", valueName: "DURATION",
            help:
                "give up on one connection attempt without a CONNACK after this, and retry (default \(Defaults.connackTimeout.components.seconds)s)"
        ) { o, v, label throws(UsageError) in
            o.connackTimeout = try duration(v, label, allowZero: false)
        },
        Option(
            flag: "--drain-timeout", variable: "DEVSIM_DRAIN_TIMEOUT", valueName: "DURATION",
            help: "time in-flight QoS 1/2 messages get to be acknowledged at the end (default \(Defaults.drainTimeout.components.seconds)s)"
        ) { o, v, label throws(UsageError) in
            o.drainTimeout = try duration(v, label, allowZero: true)
        },
        Option(
            flag: "--stats-interval", variable: "DEVSIM_STATS_INTERVAL", valueName: "DURATION",
            help: "time between status lines (default \(Defaults.statsInterval.components.seconds)s, 0 for none)"
        ) { o, v, label throws(UsageError) in
            let interval = try duration(v, label, allowZero: true)
            o.statsInterval = interval > .zero ? interval : nil
        },
        Option(
            flag: "--timeline-interval", variable: "DEVSIM_TIMELINE_INTERVAL", valueName: "DURATION",
            help: "time between the points of the report's timeline (default 1s, 0 for none; at least 10ms)"
        ) { o, v, label throws(UsageError) in
            let interval = try duration(v, label, allowZero: true)
            guard interval == .zero || interval >= .milliseconds(10) else {
                throw UsageError("\(label): expected 0 or at least 10ms, found '\(v)'")
            }
            o.timelineInterval = interval > .zero ? interval : nil
        },
        Option(flag: "--loops", variable: "DEVSIM_LOOPS", valueName: "N", help: "event-loop threads (default: one per core)") {
            o, v, label throws(UsageError) in
            guard let n = Int(v), n > 0, n <= 1024 else {
                throw UsageError("\(label): expected a whole number from 1 to 1024, found '\(v)'")
            }
            o.loops = n
        },
        Option(
            flag: "--max-inflight", variable: "DEVSIM_MAX_INFLIGHT", valueName: "N",
            help: "unacknowledged QoS 1/2 messages per connection (default \(Defaults.maxInFlight))"
        ) { o, v, label throws(UsageError) in
            guard let n = Int(v), n > 0, n <= 65535 else {
                throw UsageError("\(label): expected a whole number from 1 to 65535, found '\(v)'")
            }
            o.maxInFlight = n
        },
        Option(
            flag: "--ack-timeout", variable: "DEVSIM_ACK_TIMEOUT", valueName: "DURATION",
            help: "count a QoS 1/2 message not acknowledged within this as an ackTimeout (default: the scenario's, else none)"
        ) { o, v, label throws(UsageError) in
            o.ackTimeout = try duration(v, label, allowZero: false)
        },
        Option(
            flag: "--verify", variable: "DEVSIM_VERIFY", valueName: nil,
            help: "subscribe to what is published and report lost, duplicated and out-of-order messages and end-to-end latency"
        ) { o, v, label throws(UsageError) in
            o.verify = try flag(v, label)
        },
        Option(
            flag: "--http", variable: "DEVSIM_HTTP", valueName: "ADDR:PORT",
            help: "serve /metrics, /healthz, /readyz and /api/status here (a port alone: on 127.0.0.1)"
        ) { o, v, label throws(UsageError) in
            do throws(HTTPServerError) {
                o.http = try HTTPAddress.parse(v)
            } catch {
                throw UsageError("\(label): \(error.message)")
            }
        },
        Option(
            flag: "--http-token-file", variable: "DEVSIM_HTTP_TOKEN_FILE", valueName: "FILE",
            help: "every HTTP request must carry this file's token (Authorization: Bearer); required off loopback"
        ) { o, v, _ in o.httpTokenFile = v },
        Option(
            flag: "--ready", variable: "DEVSIM_READY", valueName: "PERCENT",
            help: "the share of connections up from which /readyz answers 200 (default \(Int(DevsimService.defaultReadyPercent))%)"
        ) { o, v, label throws(UsageError) in
            let number = v.hasSuffix("%") ? String(v.dropLast()) : v
            guard let percent = Double(number), (0...100).contains(percent), percent > 0 else {
                throw UsageError("\(label): expected a share above 0% and at most 100%, such as 90%, found '\(v)'")
            }
            o.readyPercent = percent
        },
        Option(flag: "--quiet", variable: "DEVSIM_QUIET", valueName: nil, help: "log warnings and errors only, no status lines") {
            o, v, label throws(UsageError) in
            o.quiet = try flag(v, label)
        },
        Option(
            flag: "--verbose", variable: "DEVSIM_VERBOSE", valueName: nil,
            help: "log every connection event, and debug lines: libmosquitto's, the event loops', the WebSocket bridges'"
        ) {
            o, v, label throws(UsageError) in
            o.verbose = try flag(v, label)
        },
    ]

    static func flag(_ value: String, _ label: String) throws(UsageError) -> Bool {
        switch value.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw UsageError("\(label): expected true or false, found '\(value)'")
        }
    }

    static func duration(_ value: String, _ label: String, allowZero: Bool) throws(UsageError) -> Duration {
        do {
            return Durations.duration(seconds: allowZero ? try Durations.parse(value) : try Durations.parsePositive(value))
        } catch {
            throw UsageError("\(label): \(error)")
        }
    }
}
