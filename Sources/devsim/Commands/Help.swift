/// The text `--help` prints, made from the option table so the two never disagree.
enum Help {
    static let version = "devsim 0.1.0"

    static func text(topic: String?) -> String {
        switch topic {
        case "run": return run
        case "validate": return validate
        default: return general
        }
    }

    static let general = """
        devsim: simulated devices publishing telemetry to an MQTT broker

        Usage:
          devsim run [options] SCENARIO...   run the scenarios until stopped, --duration or --messages
          devsim validate SCENARIO...        check scenarios; exit 0, or print every error and exit 2
          devsim --version | --help
          devsim run --help                  the run options

        Exit codes: 0 done as asked, 1 runtime failure, 2 bad usage or invalid scenario,
        3 no connection within the connect timeout.

        """

    static let validate = """
        Usage: devsim validate SCENARIO...

        Loads each scenario file and prints every problem as FILE:LINE:COLUMN: message.
        Exits 0 when all are valid, 2 otherwise.

        """

    static var run: String {
        var text = """
            Usage: devsim run [options] SCENARIO...

            Options (each also settable by the environment variable beside it; the flag wins):

            """
        for option in ArgumentParser.runOptions where !option.help.isEmpty {
            let flag = option.flag + (option.valueName.map { " " + $0 } ?? "")
            text += "  " + flag.padding(28) + option.variable.padding(24) + option.help + "\n"
        }
        text += """

            SIGINT or SIGTERM stops gracefully: no new ticks, in-flight QoS 1/2 messages get the
            drain timeout to be acknowledged, DISCONNECT, report written, exit 0. A second signal
            exits at once.

            """
        return text
    }
}

private extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
