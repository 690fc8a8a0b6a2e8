import Report

/// The recorder's status line, every `--stats-interval`: what the recording holds and the rate
/// since the previous line. In logs, a line each time; on a terminal, one line redrawn in place,
/// as `run`'s (`StatusReporter`).
struct RecordStatus {
    let logger: Logger
    let redraw: (@Sendable (String) -> Void)?
    /// `--duration`, which the line measures the time against.
    let duration: Duration?
    private var previousMessages = 0
    private var previousTime: UInt64 = 0

    init(logger: Logger, redraw: (@Sendable (String) -> Void)?, duration: Duration?) {
        self.logger = logger
        self.redraw = redraw
        self.duration = duration
    }

    mutating func start(at now: UInt64) {
        previousTime = now
    }

    /// `recording: 120 messages on 3 topics, 4.2 kB, 7.0 msg/s over the last 5.0 s, 17.1s of 60.0s`
    /// (`17.1s in` without `--duration`).
    mutating func report(_ tally: RecordTally, seconds: Double, at now: UInt64) {
        let interval = Double(now &- previousTime) / 1e9
        let rate = interval > 0 ? Double(tally.messages - previousMessages) / interval : 0
        let line =
            "recording: " + Self.line(tally)
            + ", \(Text.fixed(rate, decimals: 1)) msg/s over the last \(Text.fixed(interval, decimals: 1)) s, "
            + formatSeconds(seconds) + (duration.map { " of " + formatSeconds($0) } ?? " in")
            + (tally.gaps > 0 ? ", \(Text.counted(tally.gaps, "gap"))" : "")
        if let redraw {
            redraw("\r\u{1B}[K" + line)
        } else if logger.format == .json {
            logger.log(
                .info, line,
                fields: [
                    ("messages", .integer(tally.messages)), ("topics", .integer(tally.topics.count)), ("bytes", .integer(tally.bytes)),
                    ("messagesPerSecond", .number(rate, decimals: 1)), ("intervalSeconds", .number(interval, decimals: 3)),
                    ("seconds", .number(seconds, decimals: 3)), ("gaps", .integer(tally.gaps)),
                ] + (duration.map { [("durationSeconds", .number($0 / .seconds(1), decimals: 3))] } ?? []))
        } else {
            logger.info(line)
        }
        previousMessages = tally.messages
        previousTime = now
    }

    /// Leaves the terminal's line for what comes after.
    func finish() {
        redraw?("\r\u{1B}[K")
    }

    /// `120 messages on 3 topics, 4.2 kB`.
    static func line(_ tally: RecordTally) -> String {
        Text.counted(tally.messages, "message") + " on " + Text.counted(tally.topics.count, "topic") + ", " + bytes(tally.bytes)
    }

    /// `812 B`, `4.2 kB`, `17.0 MB`: payload bytes, in powers of 1000.
    static func bytes(_ count: Int) -> String {
        if count < 1000 { return "\(count) B" }
        if count < 1_000_000 { return Text.fixed(Double(count) / 1e3, decimals: 1) + " kB" }
        if count < 1_000_000_000 { return Text.fixed(Double(count) / 1e6, decimals: 1) + " MB" }
        return Text.fixed(Double(count) / 1e9, decimals: 1) + " GB"
    }
}
