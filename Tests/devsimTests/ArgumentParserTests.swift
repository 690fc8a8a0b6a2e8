import Foundation
import Report
import Service
import Testing
@testable import devsim

@Suite struct ArgumentParserTests {
    private func run(_ arguments: [String], _ environment: [String: String] = [:]) throws -> RunOptions {
        guard case .run(let options) = try ArgumentParser.parse(["run"] + arguments, environment: environment) else {
            Issue.record("not a run command")
            return RunOptions()
        }
        return options
    }

    @Test func readsFlagsInBothForms() throws {
        let options = try run([
            "--host", "broker", "--port=1884", "--duration", "30s", "--messages", "5",
            "--seed", "42", "--report", "r.json", "--dry-run", "--log-format", "json", "a.yaml", "b.yaml",
        ])
        #expect(options.host == "broker")
        #expect(options.port == 1884)
        #expect(options.duration == .seconds(30))
        #expect(options.messages == 5)
        #expect(options.seed == 42)
        #expect(options.reports == [ReportOutput(path: "r.json", format: .json)])
        #expect(options.dryRun)
        #expect(options.logFormat == .json)
        #expect(options.scenarios == ["a.yaml", "b.yaml"])
    }

    @Test func environmentFillsWhatFlagsLeaveAndFlagsWin() throws {
        let environment = [
            "DEVSIM_HOST": "from-env", "DEVSIM_PORT": "1999", "DEVSIM_PASSWORD": "secret",
            "DEVSIM_DURATION": "5m", "DEVSIM_DRY_RUN": "true",
        ]
        let options = try run(["--port", "2000", "s.yaml"], environment)
        #expect(options.host == "from-env")
        #expect(options.port == 2000)
        #expect(options.password == "secret")
        #expect(options.duration == .seconds(300))
        #expect(options.dryRun)
    }

    @Test func badValuesNameTheFlagOrTheVariable() {
        #expect(throws: UsageError("--port: expected a port number from 1 to 65535, found 'x'")) { try run(["--port", "x", "s.yaml"]) }
        #expect(throws: UsageError("DEVSIM_PORT: expected a port number from 1 to 65535, found '70000'")) {
            try run(["s.yaml"], ["DEVSIM_PORT": "70000"])
        }
        #expect(throws: UsageError("--duration: expected a duration such as 250ms, 30s, 5m, 1.5h or 2d above zero, found 'soon'")) {
            try run(["--duration", "soon", "s.yaml"])
        }
        #expect(throws: UsageError("--messages: expected a whole number above 0, found '0'")) { try run(["--messages", "0", "s.yaml"]) }
    }

    @Test func unknownFlagsGetAHint() {
        #expect(throws: UsageError("run: unknown option '--duraton'; did you mean --duration?")) { try run(["--duraton", "1s", "s.yaml"]) }
    }

    @Test func aMistakePointsToTheHelpOfItsCommand() {
        func hint(_ arguments: [String]) -> String? {
            do {
                _ = try ArgumentParser.parse(arguments, environment: [:])
                return nil
            } catch {
                return error.hint
            }
        }
        #expect(hint(["run", "--port", "x", "s.yaml"]) == "Try 'devsim run --help'.")
        #expect(hint(["sample", "--count", "0", "s.yaml"]) == "Try 'devsim sample --help'.")
        #expect(hint(["report", "merge"]) == "Try 'devsim report --help'.")
        #expect(hint(["launch"]) == "Try 'devsim --help'.")
    }

    /// `Duration.seconds(_:)` traps above about 1.7e20 s: an absurd length is held at 32 years.
    @Test func anAbsurdDurationIsHeldNotACrash() throws {
        #expect(try run(["--duration", "300000000000000000000", "s.yaml"]).duration == .seconds(1_000_000_000))
        #expect(try run(["--connect-timeout", "3000000000000000d", "s.yaml"]).connectTimeout == .seconds(1_000_000_000))
    }

    @Test func missingValuesAndScenariosAreErrors() {
        #expect(throws: UsageError("--host needs a value (HOST)")) { try run(["s.yaml", "--host"]) }
        #expect(throws: UsageError("run: name at least one scenario file")) { try run(["--dry-run"]) }
        #expect(throws: UsageError.self) { try ArgumentParser.parse(["validate"], environment: [:]) }
        #expect(throws: UsageError.self) { try ArgumentParser.parse(["launch"], environment: [:]) }
    }

    @Test func passwordIsNeverAFlag() {
        #expect(throws: UsageError.self) { try run(["--password", "p", "s.yaml"]) }
    }

    @Test func commandsHelpAndVersion() throws {
        #expect(try ArgumentParser.parse([], environment: [:]) == .missingCommand)
        #expect(try ArgumentParser.parse(["--version"], environment: [:]) == .version)
        #expect(
            try ArgumentParser.parse(["report", "merge", "--force", "a.json", "b.json"], environment: [:])
                == .reportMerge(ReportMergeOptions(reports: ["a.json", "b.json"], output: nil, force: true)))
        #expect(try ArgumentParser.parse(["run", "--help"], environment: [:]) == .help(topic: "run"))
        #expect(try ArgumentParser.parse(["validate", "a.yaml"], environment: [:]) == .validate(["a.yaml"]))
    }

    /// Issue 10, item 7: a host that is a URL or holds a port was resolved as a name and
    /// retried as one for ever.
    @Test func aHostThatIsAURLOrHoldsAPortIsRefusedWithWhatToWrite() throws {
        #expect(
            throws: UsageError(
                "--host: 'ws://broker:8080/mqtt' is a URL, not a host name: give it as a URL (broker.url, --url), "
                    + "or the host alone ('broker') and the port on its own")
        ) {
            try run(["--host", "ws://broker:8080/mqtt", "s.yaml"])
        }
        #expect(throws: UsageError("DEVSIM_HOST: 'broker:1884' holds a port: give the host ('broker') and the port (1884) on their own")) {
            try run(["s.yaml"], ["DEVSIM_HOST": "broker:1884"])
        }
        #expect(try run(["--host", "::1", "s.yaml"]).host == "::1", "an IPv6 address is a host")
        #expect(throws: UsageError("--host: '[::1]:1883' holds a port: give the host ('::1') and the port (1883) on their own")) {
            try run(["--host", "[::1]:1883", "s.yaml"])
        }
        #expect(throws: UsageError("--host: 'broker:' is not a host name or address: a host has no ':' (an IPv6 address has several)")) {
            try run(["--host", "broker:", "s.yaml"])
        }
    }

    @Test func protocolOverridesTheScenarioAndAMistakeGetsAHint() throws {
        #expect(try run(["--protocol", "mqtt5", "s.yaml"]).mqttProtocol == .v5)
        #expect(try run(["s.yaml"], ["DEVSIM_PROTOCOL": "mqtt31"]).mqttProtocol == .v31)
        #expect(throws: UsageError("--protocol: expected mqtt31, mqtt311 or mqtt5, found 'mqtt3'; did you mean mqtt31?")) {
            try run(["--protocol", "mqtt3", "s.yaml"])
        }
    }

    @Test func anonymousLeavesOutCredentialsAndCannotGoWithThem() throws {
        #expect(try run(["--anonymous", "s.yaml"]).anonymous)
        #expect(throws: UsageError("--anonymous leaves out every user name and password; it cannot go with --username")) {
            try run(["--anonymous", "--username", "u", "s.yaml"])
        }
        let fromEnvironment = try run(["--anonymous", "s.yaml"], ["DEVSIM_PASSWORD": "p", "DEVSIM_USERNAME": "u"])
        #expect(fromEnvironment.password == nil && fromEnvironment.username == nil, "the flag wins over the environment")
    }

    @Test func statsIntervalZeroTurnsStatusLinesOff() throws {
        #expect(try run(["--stats-interval", "0", "s.yaml"]).statsInterval == nil)
        #expect(try run(["--stats-interval", "2s", "s.yaml"]).statsInterval == .seconds(2))
    }
}

/// Issue 16, item 11: the README's option table and `devsim run`'s flags cannot drift apart.
@Suite struct OptionTableTests {
    @Test func everyRunFlagIsInTheReadmesOptionTableWithItsVariableAndTheReverse() throws {
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("README.md"),
            encoding: .utf8)
        // "| `--messages N` | `DEVSIM_MESSAGES` | …": the flag without its value, and the variable.
        var documented: [String: String] = [:]
        for row in readme.split(separator: "\n") where row.hasPrefix("| `--") {
            // An escaped \| (`mqtt31\|mqtt5`) is inside a cell, not between two.
            let cells = row.replacingOccurrences(of: "\\|", with: "/").split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, let flag = cells[0].dropFirst().split(separator: " ").first else { continue }
            documented[String(flag).replacingOccurrences(of: "`", with: "")] = cells[1].replacingOccurrences(of: "`", with: "")
        }
        let options = ArgumentParser.runOptions.filter { !$0.help.isEmpty }
        for option in options {
            #expect(documented[option.flag] == option.variable, "README's option table: \(option.flag) \(option.variable)")
        }
        #expect(Set(documented.keys).subtracting(options.map(\.flag)).isEmpty, "rows for flags run does not take")
    }
}

/// Issue 29: `--bind` and a `--url` list.
@Suite struct HostsArgumentTests {
    private func run(_ arguments: [String], _ environment: [String: String] = [:]) throws -> RunOptions {
        guard case .run(let options) = try ArgumentParser.parse(["run"] + arguments, environment: environment) else { return RunOptions() }
        return options
    }

    @Test func bindTakesACommaListOfAddresses() throws {
        #expect(try run(["--bind", "127.0.0.2,::1", "s.yaml"]).bind?.addresses == ["127.0.0.2", "::1"])
        #expect(try run(["s.yaml"], ["DEVSIM_BIND": "10.0.0.5"]).bind?.origin == "DEVSIM_BIND")
        #expect(throws: UsageError("--bind: 'eth0' is not an IP address of this machine such as 127.0.0.2 or 10.0.0.5")) {
            try run(["--bind", "127.0.0.2,eth0", "s.yaml"])
        }
        #expect(throws: UsageError("--bind: '127.0.0.2' is given twice: each source address once")) {
            try run(["--bind", "127.0.0.2,127.0.0.2", "s.yaml"])
        }
        #expect(try run(["--bind", "127.0.0.2", "s.yaml"]).overriddenBrokerKeys.contains("broker.bind"))
    }

    @Test func aURLListIsACluster() throws {
        let options = try run(["--url", "mqtts://a:8883,mqtts://b", "s.yaml"])
        #expect(options.url?.host == "a")
        #expect(options.urlHosts?.entries == [.init(host: "a", port: 8883), .init(host: "b", port: 8883)])
        #expect(options.urlHosts?.scheme == .mqtts && options.urlHosts?.spread == .device)
        #expect(try run(["--url", "mqtt://a", "s.yaml"]).urlHosts == nil, "one URL is one broker")
        #expect(
            throws: UsageError(
                "--url: 'ws://b/mqtt' and 'mqtt://a' differ in scheme or path: the nodes of one cluster share a transport and TLS")
        ) {
            try run(["--url", "mqtt://a,ws://b/mqtt", "s.yaml"])
        }
        #expect(throws: UsageError("--url: a list of URLs names no user: give it with --username (DEVSIM_USERNAME)")) {
            try run(["--url", "mqtt://u@a,mqtt://u@b", "s.yaml"])
        }
        #expect(throws: UsageError("DEVSIM_URL: 'mqtt://a' is in the list twice: each broker once")) {
            try run(["s.yaml"], ["DEVSIM_URL": "mqtt://a,mqtt://a"])
        }
    }

    /// Issue 38, item 15: an unknown command named every command but `report`, from a list
    /// kept apart from the parser's. Now both are `CommandName`'s, which the help lists too.
    @Test func anUnknownCommandNamesEveryCommand() throws {
        #expect(throws: UsageError("unknown command 'infer'; the commands are run, record, validate, sample, report, help and version")) {
            try ArgumentParser.parse(["infer", "a.jsonl"], environment: [:])
        }
        for command in CommandName.allCases {
            #expect(Help.general.contains("devsim \(command.rawValue)") || Help.general.contains("--\(command.rawValue)"), "\(command)")
            #expect((try? ArgumentParser.parse([command.rawValue, "--help"], environment: [:])) != nil, "\(command) is parsed")
        }
        #expect(try ArgumentParser.parse(["-V"], environment: [:]) == .version)
        #expect(try ArgumentParser.parse(["--help", "run"], environment: [:]) == .help(topic: "run"))
    }
}
