import Simulator

extension Help {
    static var record: String {
        var text = """
            Usage: devsim record --topic FILTER [--topic FILTER...] --output DIR [options]

            Subscribes to the broker (--url, else --host and --port, else \(Defaults.host):\(Defaults.port))
            and writes every message that arrives into DIR/recording.jsonl as it comes: its time,
            topic, QoS, retain flag and payload, one JSON object a line (docs/recordings.md). At the
            end it writes DIR/replay.yaml, a scenario that replays the recording:
            devsim run DIR/replay.yaml. For example:

              devsim record --url mqtt://127.0.0.1:1883 --topic 'building/#' --duration 10m --output rec

            Options (those shared with run are also settable by the variable beside them):

            """
        for option in ArgumentParser.recordOptions where !option.help.isEmpty {
            let flag = option.flag + (option.valueName.map { " " + $0 } ?? "")
            text += "  " + flag.padding(28) + option.variable.padding(24) + option.help + "\n"
        }
        text += """

            Time 0 is the moment the broker granted the subscriptions (their SUBACK); each message's
            "t" is the seconds from then to its arrival, on the monotonic clock. The retained
            messages the broker sends at the subscription come first, at about 0, retain: true.
            Under MQTT 5 (the default) live messages keep their publisher's retain flag (Retain As
            Published); under --protocol mqtt311 the broker clears it, and they read false.
            --duration counts from the grant. Lines reach the file at least once a second, so a
            kill loses at most the last second.

            A status line every --stats-interval says what the recording holds (messages, topics,
            payload bytes, the rate, the time); a summary line ends it. If the broker goes away the
            recorder connects again, with backoff, and subscribes again: what was published
            meanwhile is missing, and the summary counts the gaps. Retained messages the broker
            sends again at such a resubscription are left out.

            SIGINT or SIGTERM ends the recording: the file is flushed and closed, replay.yaml
            written, exit 0. A broker that refuses the connection (its credentials) or a
            subscription ends it at once; one that cannot be reached, after --connect-timeout:
            exit 3 if nothing was subscribed yet (no file is left), else 1 (what was recorded is
            kept, and replayed). A DIR that holds a recording already is refused (exit 2) unless
            --force, which replaces it once the new one begins.

            """
        return text
    }
}
