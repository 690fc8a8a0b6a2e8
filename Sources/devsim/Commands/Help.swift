import Report
import Simulator

/// The text `--help` prints, made from the option table so the two never disagree.
enum Help {
    /// The release, as packages and Home Assistant's `sw_version` give it.
    static let versionNumber = "0.1.0"
    static let version = "devsim " + versionNumber

    static func text(topic: String?) -> String {
        switch topic {
        case "run": return run
        case "record": return record
        case "validate": return validate
        case "sample": return sample
        case "report": return report
        default: return general
        }
    }

    static let general = """
        devsim: simulated devices publishing telemetry to an MQTT broker

        Usage:
          devsim run [options] SCENARIO...   run the scenarios until stopped, --duration or --messages
          devsim record --topic FILTER... --output DIR [options]
                                             record a broker's traffic, and a scenario that replays it
          devsim validate SCENARIO...        check scenarios; exit 0, or print every error and exit 2
          devsim sample [--count N] [--for DURATION] [--seed N] SCENARIO...
                                             print the first ticks of every device group
          devsim report merge [--output FILE] [--force] REPORT...
                                             add up shard reports (run --shard) into one
          devsim report csv|html [--output FILE] REPORT
                                             a report's timeline as CSV, or the report as a page
          devsim --version | --help
          devsim run --help                  the run options
          devsim record --help               the record options

        Exit codes: 0 done as asked, 1 runtime failure, 2 bad usage or invalid scenario,
        3 no connection within the connect timeout, 4 an --expect assertion failed.

        """

    static let validate = """
        Usage: devsim validate SCENARIO...

        Loads each scenario file (and the files it includes) and prints every problem as
        FILE:LINE:COLUMN: message, with a hint where one helps. Each file is checked on its own,
        client ids included. Exits 0 when all are valid, 2 otherwise.

        """

    static let sample = """
        Usage: devsim sample [--count N] [--for DURATION] [--seed N] SCENARIO...

        Prints the first N ticks (default 3), or every tick of the first DURATION, of the first
        device of every device group, on a virtual clock, without a broker: a header per group
        (name, where it is written, devices, rate, qos), the device's id and topic, then one
        line per tick with its time after the device's first CONNACK (+HH:MM:SS.mmm, as the
        dry run's "at") and the payload. A device with discovery, availability or commands
        first shows the state it says at its CONNACK, at +00:00:00.000, beside the N ticks,
        unless its first tick falls then. The payloads are those a run with the same seed
        publishes. Without --seed a random seed is used and printed. A publish: max group has
        no schedule to cover: it shows N ticks, numbered.
        Exits 2 and prints every problem when a scenario is invalid.

          --count N        ticks per device group, 1 to 10000 (default 3; with --for, no bound
                           unless given)
          --for DURATION   every tick of this stretch of virtual time: 24h shows a day
          --seed N         seed for the values (default: random, printed)

        """

    static let report = """
        Usage: devsim report merge [--output FILE] [--force] REPORT...
               devsim report csv [--output FILE] REPORT
               devsim report html [--output FILE] REPORT

        Adds up the JSON reports of the shards of one fleet (run --shard K/N --report FILE)
        into the report of the whole fleet, on standard output or in FILE: counts summed
        (groups by name, connection errors by reason, faults, verify counts), durationSeconds
        the longest, ratePerSecond recomputed from them, and latency, lateness and connection
        timing percentiles computed from the sum of the reports' raw histograms, never
        averaged. Warns when the reports' seeds or scenarios differ or shards are missing or
        repeated. Exits 2, naming the file, when a report cannot be read or has no histograms,
        or is of a whole run rather than a shard: whole runs were not side by side, and their
        sum never happened.

          --output FILE    write the merged report here instead of standard output
          --force          merge reports that are not all shards' all the same, with a warning

        'report csv' writes the report's timeline as CSV: a header line, then per interval
        at_seconds, seconds, scheduled, published, acknowledged, connections_up, errors and the
        latency and lateness p50 and p99 in milliseconds (empty when nothing was acknowledged).
        The shards' timelines are merged by wall-clock interval.

        'report html' writes the report as one self-contained page (no script, nothing loaded
        from elsewhere): its figures, the --expect verdicts, the timeline as charts (published
        against scheduled, latency and lateness percentiles, connections up, reloads marked)
        and the device groups. Their --output FILE may not be named for another format
        (report html --output r.json exits 2); each file is written beside its place and
        renamed into it, whole or not at all.

        """

    static var run: String {
        var text = """
            Usage: devsim run [options] SCENARIO...

            Runs until stopped (a signal), --duration or --messages, against the scenario's
            broker, else \(Defaults.host):\(Defaults.port). For example:

              devsim run scenarios/sensor-room.yaml --host 127.0.0.1 --duration 30s --expect 'lateness.p99<5ms'

            Options (each also settable by the environment variable beside it; the flag wins):

            """
        for option in ArgumentParser.runOptions where !option.help.isEmpty {
            let flag = option.flag + (option.valueName.map { " " + $0 } ?? "")
            text += "  " + flag.padding(28) + option.variable.padding(24) + option.help + "\n"
        }
        text += """

            --expect FIGURE OP VALUE, OP one of <, <=, >, >=, ==, !=; VALUE with % for rate
            (published/scheduled), acked (acknowledged/sent at QoS 1/2), connected
            (connectionsUp/connections) and lost (a share of published, with --verify), ms, s or
            us for durations, no unit for counts. Several in one value separate with commas. An
            assertion no run of the scenarios can judge (lost without --verify, latency at QoS 0,
            lateness at publish: max) exits 2 before connecting. Figures:
            \(wrapped(ReportMetrics.summary + ".", width: 84))
            A run that breaks one exits 4 (exit 3, no connection, wins); each is logged with its
            actual value and by how much it missed, and the report's "expectations" lists them.

            --shard K/N runs shard K of N (K from 0 to N-1, as JOB_COMPLETION_INDEX counts): the
            devices whose id hashes to K (jump consistent hash), the same devices and data
            whatever else runs. Without it, JOB_COMPLETION_INDEX with DEVSIM_SHARDS (the Job's
            completions) choose the shard. 'devsim report merge' adds up the shards' reports.

            SIGINT or SIGTERM stops gracefully: no new ticks, in-flight QoS 1/2 messages get the
            drain timeout to be acknowledged, DISCONNECT, report written, exit 0. A second signal
            exits at once. SIGHUP reads the scenario files again and applies the difference: new
            groups start, removed ones leave cleanly, changed ones restart, and the others are not
            touched; files with errors leave the fleet as it is.

            """
        return text
    }
}

/// `text` broken at spaces into lines of at most `width` characters (a longer word stays whole).
func wrapped(_ text: String, width: Int) -> String {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ") {
        if !line.isEmpty, line.count + 1 + word.count > width {
            lines.append(line)
            line = ""
        }
        line += (line.isEmpty ? "" : " ") + word
    }
    if !line.isEmpty { lines.append(line) }
    return lines.joined(separator: "\n")
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
