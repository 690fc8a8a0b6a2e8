import Dispatch
import Glibc
import MQTT
import Mosquitto
import Reactor
import Report
import Scenario

/// What `Recorder` does on its loop, whose it is: the connection, the file, the tally and the
/// timers that end the recording.
final class RecordKeeper: TimerTarget {
    let settings: RecordSettings
    let logger: Logger
    let loop: EventLoop
    private let connection: RecorderConnection
    /// Made when the recording begins (the first grant): a recording replaced (`--force`) is
    /// kept until then, and a recorder that never subscribes leaves no file.
    private var writer: RecordingWriter?
    private let speaksMQTT5: Bool
    /// Signalled once the connection is done, which `Recorder.run` waits for.
    private let done: DispatchSemaphore

    // Read by `Recorder.run` once the loop has stopped.
    private var tally = RecordTally()
    private var end: RecordEnd?
    /// Monotonic nanoseconds of the first grant: time 0.
    private var origin: UInt64?
    /// When the connection was lost, while it is away.
    private var lostAt: UInt64?
    private var endedAt: UInt64?
    private var lastFailure: String?
    /// Failures said once: a broker away is tried again every few seconds.
    private var said: Set<String> = []
    private var finished = false
    private let connectTimer: Timer
    private let durationTimer: Timer
    private let flushTimer: Timer
    private let statusTimer: Timer
    /// Bounds the wait for the DISCONNECT at the end.
    private let finishTimer: Timer
    private var status: RecordStatus

    /// Makes the client on `loop`, which has not started; the file comes with the first grant.
    init(settings: RecordSettings, logger: Logger, loop: EventLoop, done: DispatchSemaphore) throws {
        self.settings = settings
        self.logger = logger
        self.loop = loop
        self.done = done
        let options = settings.clientOptions
        speaksMQTT5 = options.protocolVersion == .v5
        connection = try RecorderConnection(
            options: options, filters: settings.filters.map(\.text), qos: settings.qos, connackTimeout: settings.connackTimeout,
            loop: loop)
        connectTimer = Timer(on: loop)
        durationTimer = Timer(on: loop)
        flushTimer = Timer(on: loop)
        statusTimer = Timer(on: loop)
        finishTimer = Timer(on: loop)
        status = RecordStatus(logger: logger, redraw: settings.liveStatus, duration: settings.duration)
        for timer in [connectTimer, durationTimer, flushTimer, statusTimer, finishTimer] { timer.target = self }
        connection.keeper = self
    }

    /// Connects, and gives the broker the connect timeout to grant the subscriptions.
    func begin() {
        let now = MonotonicClock.now()
        connection.open()
        connectTimer.schedule(at: now &+ MonotonicClock.nanoseconds(settings.connectTimeout))
    }

    /// What was recorded, once the loop has stopped.
    var result: RecordResult {
        let seconds = origin.map { Double((endedAt ?? MonotonicClock.now()) &- $0) / 1e9 }
        return RecordResult(tally: tally, end: end ?? .stopped, seconds: seconds, path: origin == nil ? nil : settings.path)
    }

    /// Ends the recording once: no message is recorded after this. The file is closed (or, with
    /// nothing subscribed, removed) and the connection says DISCONNECT.
    func finish(_ reason: RecordEnd) {
        guard end == nil else { return }
        end = reason
        endedAt = MonotonicClock.now()
        for timer in [connectTimer, durationTimer, flushTimer, statusTimer] { timer.cancel() }
        if origin != nil {
            status.finish()
            do {
                try writer?.close()
            } catch {
                if reason.isClean { end = .writeFailed(error.description) }
            }
        }
        finishTimer.schedule(at: endedAt! &+ ConnectionDriver.quietLimit &* 2)
        // Not from inside a libmosquitto callback (a CONNACK, a message), where the DISCONNECT
        // or the close would take the client's locks again.
        LoopBound(connection, on: loop).execute { $0.stop() }
    }

    /// The connection is done: `Recorder.run` may return.
    func connectionFinished() {
        guard !finished else { return }
        finished = true
        finishTimer.cancel()
        done.signal()
    }

    package func timerFired(_ timer: Timer, now: UInt64) {
        if timer === connectTimer {
            guard origin == nil else { return }
            let waited = formatSeconds(settings.connectTimeout)
            finish(
                .noConnection(
                    "no subscription granted within the connect timeout of \(waited)"
                        + (lastFailure.map { ": the last attempt: \($0)" } ?? "; raise it with --connect-timeout")))
        } else if timer === durationTimer {
            finish(.duration)
        } else if timer === flushTimer {
            flush()
            flushTimer.schedule(at: now &+ 1_000_000_000)
        } else if timer === statusTimer, let origin, let interval = settings.statsInterval {
            status.report(tally, seconds: Double(now &- origin) / 1e9, at: now)
            statusTimer.schedule(at: now &+ MonotonicClock.nanoseconds(interval))
        } else if timer === finishTimer {
            // The DISCONNECT did not come back in time: the recording is whole all the same.
            connectionFinished()
        }
    }

    private func flush() {
        do {
            try writer?.flush()
        } catch {
            finish(.writeFailed(error.description))
        }
    }
}

extension RecordKeeper {
    /// Every filter was granted: the first time, time 0 and the header; again, after a loss.
    func subscribed(again: Bool) {
        guard end == nil else { return }
        let now = MonotonicClock.now()
        if again, let lostAt {
            let away = Double(now &- lostAt) / 1e9
            tally.secondsAway += away
            self.lostAt = nil
            logger.info("record: subscribed again after \(formatSeconds(away)) away; what was published meanwhile is not in the recording")
            return
        }
        guard origin == nil else { return }
        origin = now
        connectTimer.cancel()
        let filters = settings.filters.map(\.text)
        do {
            // What was made from a recording this one replaces goes with it.
            for path in settings.replacing { unlink(path) }
            let writer = try RecordingWriter(path: settings.path)
            self.writer = writer
            try writer.append(text: Recording.header(source: settings.source, topics: filters, started: WallTime.now().iso8601))
        } catch {
            finish(.writeFailed(error.description))
            return
        }
        logger.info(
            "recording \(filters.joined(separator: ", ")) from \(settings.source) into \(settings.path)"
                + (settings.duration.map { " for \(formatSeconds($0))" } ?? "")
                + (settings.messages.map { ", at most \(Text.counted($0, "message"))" } ?? "")
                + (speaksMQTT5 ? "" : "; under MQTT 3 only the retained messages sent at the subscription read retain: true"))
        if let duration = settings.duration { durationTimer.schedule(at: now &+ MonotonicClock.nanoseconds(duration)) }
        flushTimer.schedule(at: now &+ 1_000_000_000)
        status.start(at: now)
        if let interval = settings.statsInterval { statusTimer.schedule(at: now &+ MonotonicClock.nanoseconds(interval)) }
    }

    /// A message arrived: recorded, or counted where it belongs.
    func receive(_ message: ReceivedMessage) {
        guard end == nil else {
            tally.afterEnd += 1
            return
        }
        // MQTT 3 marks retained only what a SUBSCRIBE made the broker send: after a loss, the
        // same retained messages again.
        if !speaksMQTT5, message.retain, tally.gaps > 0 {
            tally.retainedCopies += 1
            return
        }
        let now = MonotonicClock.now()
        // A message before the SUBACK (a broker may send retained messages first) is at 0.
        let time = origin.map { now > $0 ? Double(now - $0) / 1e9 : 0 } ?? 0
        let topic = message.topic
        let recorded = RecordedMessage(
            time: time, topic: topic, qos: message.qos, retain: message.retain, payload: Array(message.payload))
        if origin == nil { subscribed(again: false) }
        guard end == nil else { return }
        do {
            try writer?.append(recorded)
        } catch {
            finish(.writeFailed(error.description))
            return
        }
        tally.messages += 1
        tally.bytes += message.payload.count
        if !tally.topics.contains(topic) { tally.topics.insert(topic) }
        if let limit = settings.messages, tally.messages >= limit { finish(.messages) }
    }

    func connectionLost(reason: String) {
        guard end == nil else { return }
        if origin != nil {
            tally.gaps += 1
            lostAt = MonotonicClock.now()
        }
        logger.warning("record: \(reason); connecting again, and what is published meanwhile is not recorded")
    }

    func attemptFailed(_ failure: AttemptFailure, speaksMQTT5: Bool) {
        guard end == nil else { return }
        var reason = failure.reason
        if speaksMQTT5, failure.unansweredByBroker || failure.refusal.map({ $0.rawValue == 1 || $0.rawValue == 0x84 }) == true {
            reason += AttemptFailure.mqtt5Hint
        }
        lastFailure = reason
        if let refusal = failure.refusal, refusal.isLasting {
            // Tried again, it would be refused as often.
            finish(.refused(reason))
            return
        }
        if said.insert(reason).inserted { logger.warning("record: \(reason)") }
    }

    /// The broker will not let it record: a subscription refused, or a SUBSCRIBE it cannot send.
    func refused(_ reason: String) {
        finish(.refused(reason))
    }
}
