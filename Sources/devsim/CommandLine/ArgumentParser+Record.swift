import MQTT
import Scenario
import Simulator

extension ArgumentParser {
    /// `record --topic FILTER... --output DIR [options]`: flags alone, each also from the
    /// environment where `run` reads it.
    static func parseRecord(_ arguments: [String], environment: [String: String]) throws(UsageError) -> RecordOptions {
        let (fromFlags, files) = try split(arguments, command: "record", flags: recordOptions.map { ($0.flag, $0.valueName) })
        if let first = files.first {
            throw UsageError("record: unexpected argument '\(first)': record takes flags only (--topic FILTER, --output DIR)")
        }
        var options = RecordOptions()
        for option in recordOptions {
            if let values = fromFlags[option.flag], let last = values.last {
                for value in option.repeatable ? values : [last] {
                    try option.apply(&options, value, option.flag)
                }
            } else if !option.variable.isEmpty, let value = environment[option.variable], !value.isEmpty {
                try option.apply(&options, value, option.variable)
            }
        }
        if options.common.password != nil, options.common.passwordFile != nil, fromFlags["--password-file"] == nil {
            // DEVSIM_PASSWORD and DEVSIM_PASSWORD_FILE both set: the password itself wins, as for run.
            options.common.passwordFile = nil
        }
        if options.common.urlHosts != nil {
            throw UsageError("--url: record subscribes to one broker: name one URL, not a list")
        }
        guard !options.filters.isEmpty else {
            throw UsageError("record: name at least one --topic FILTER (such as --topic 'building/#'), what to record")
        }
        guard options.output != nil else { throw UsageError("record: --output DIR is required: the directory the recording goes in") }
        return options
    }

    /// The flags `record` takes from `run`: the same meaning, parsing and variable, and where
    /// `run`'s words would mislead here, these.
    static let recordSharedFlags: [(flag: String, help: String?)] = [
        ("--url", "the broker as a URL: mqtt://HOST:PORT, mqtts://…, ws://HOST:PORT/PATH, wss://…"),
        ("--host", nil), ("--port", nil),
        ("--protocol", "MQTT version (default mqtt5: live messages keep their retain flag)"),
        ("--username", nil), ("--password-file", nil), ("--password", nil),
        ("--duration", "stop this long after the subscriptions are granted: 30s, 5m, 1h (default: until a signal)"),
        (
            "--connect-timeout",
            "give up (exit 3) if no subscription is granted within this (default \(Defaults.connectTimeout.components.seconds)s)"
        ),
        ("--connack-timeout", nil), ("--stats-interval", nil), ("--log-format", nil), ("--quiet", nil), ("--verbose", nil),
    ]

    /// Their order in `--help`: what to record, when to stop, the broker, the rest.
    private static let recordOrder = [
        "--topic", "--output", "--duration", "--messages", "--url", "--host", "--port", "--protocol", "--username", "--password-file",
        "--password", "--ca", "--cert", "--key", "--insecure", "--client-id", "--qos", "--force", "--infer", "--connect-timeout",
        "--connack-timeout", "--stats-interval", "--log-format", "--quiet", "--verbose",
    ]

    static let recordOptions: [Option<RecordOptions>] = {
        let shared = recordSharedFlags.compactMap { name, help in
            runOptions.first { $0.flag == name }.map { run in
                Option<RecordOptions>(
                    flag: run.flag, variable: run.variable, valueName: run.valueName, help: help ?? run.help, repeatable: run.repeatable
                ) { o, v, label throws(UsageError) in
                    try run.apply(&o.common, v, label)
                }
            }
        }
        let all = recordOwnOptions + shared
        return recordOrder.compactMap { name in all.first { $0.flag == name } }
    }()

    private static let recordOwnOptions: [Option<RecordOptions>] = [
        Option(
            flag: "--topic", variable: "", valueName: "FILTER",
            help: "a topic filter to record, + and # allowed (repeatable; at least one)", repeatable: true
        ) { o, v, label throws(UsageError) in
            do throws(TopicFilterError) {
                let filter = try TopicFilter(v)
                if !o.filters.contains(filter) { o.filters.append(filter) }
            } catch {
                throw UsageError("\(label) '\(v)': \(error.message)")
            }
        },
        Option(
            flag: "--output", variable: "", valueName: "DIR",
            help: "the directory for recording.jsonl and replay.yaml, made if missing (required)"
        ) { o, v, label throws(UsageError) in
            guard !v.isEmpty else { throw UsageError("\(label): expected a directory, found an empty name") }
            o.output = v
        },
        Option(flag: "--force", variable: "", valueName: nil, help: "replace the recording DIR already holds") {
            o, v, label throws(UsageError) in
            o.force = try flag(v, label)
        },
        Option(
            flag: "--messages", variable: "", valueName: "N", help: "stop after N messages recorded"
        ) { o, v, label throws(UsageError) in
            guard let n = Int(v), n > 0 else { throw UsageError("\(label): expected a whole number above 0, found '\(v)'") }
            o.messages = n
        },
        Option(
            flag: "--qos", variable: "", valueName: "0|1|2",
            help: "the subscriptions' QoS, the most a message keeps of its own (default 2: every message keeps its QoS)"
        ) { o, v, label throws(UsageError) in
            guard let level = Int32(v), let qos = QoS(rawValue: level) else {
                throw UsageError("\(label): expected 0, 1 or 2, found '\(v)'")
            }
            o.qos = qos
        },
        Option(
            flag: "--infer", variable: "", valueName: nil,
            help: "also write inferred.yaml: a scenario of generators fitted to what was recorded"
        ) { o, v, label throws(UsageError) in
            o.infer = try flag(v, label)
        },
        Option(
            flag: "--client-id", variable: "", valueName: "ID", help: "the recorder's client id (default devsim-record-PID-RANDOM)"
        ) { o, v, label throws(UsageError) in
            guard !v.isEmpty else { throw UsageError("\(label): expected a client id, found an empty one") }
            o.clientID = v
        },
        Option(flag: "--ca", variable: "", valueName: "FILE", help: "TLS: the CA certificates (PEM) the broker's is checked against") {
            o, v, _ in o.ca = v
        },
        Option(flag: "--cert", variable: "", valueName: "FILE", help: "TLS: a client certificate (PEM), with --key") { o, v, _ in
            o.certificate = v
        },
        Option(flag: "--key", variable: "", valueName: "FILE", help: "TLS: the client certificate's key (PEM, unencrypted)") {
            o, v, _ in o.key = v
        },
        Option(
            flag: "--insecure", variable: "", valueName: nil, help: "TLS: accept any certificate, unverified (self-signed test brokers)"
        ) { o, v, label throws(UsageError) in
            o.insecure = try flag(v, label)
        },
    ]
}
