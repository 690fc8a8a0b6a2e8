import Glibc
import MQTT
import Mosquitto
import Report
import Scenario
import Simulator

/// `devsim record`: subscribes to the broker's topics and writes what arrives into
/// `--output DIR` (`Recorder`), then the scenario that replays it. The recorder is the
/// Simulator's; this wires the flags, the signals and the files.
struct RecordCommand {
    var options: RecordOptions
    var environment: [String: String]
    var logger: Logger

    func execute() -> ExitCode {
        do {
            return try record()
        } catch {
            return .after(error, logger: logger)
        }
    }

    private func record() throws -> ExitCode {
        var settings = try self.settings()
        let output: RecordOutput
        do {
            output = try RecordOutput.prepare(options.output ?? ".", force: options.force)
        } catch {
            throw UsageError("--output: \(error)")
        }
        settings.path = output.recordingPath
        settings.replacing = output.scenarioPaths
        let recorder = try Recorder(settings: settings, logger: logger)
        let signals = SignalHandling.install(onFirst: { recorder.requestStop() }, onHangUp: {})
        let result = try recorder.run()
        withExtendedLifetime(signals) {}
        let summary = "recorded " + result.line + (result.path.map { " into \($0)" } ?? "") + ", \(result.end.words)"
        guard result.path != nil else {
            // Nothing was subscribed: no recording, and no connection worth the name.
            output.removeMadeDirectories()
            logger.error(result.end.words)
            return .noConnection
        }
        if !result.end.isClean { logger.error(result.end.words) }
        logger.info("finished: " + summary)
        let written = writeScenarios(output, messages: result.tally.messages)
        return result.end.isClean && written ? .success : .failure
    }

    /// `replay.yaml` and, with `--infer`, `inferred.yaml`, from the recording as it was
    /// written: what a replay of it will read. Returns whether they were written, or there
    /// was nothing to make them of.
    private func writeScenarios(_ output: RecordOutput, messages: Int) -> Bool {
        guard messages > 0 else {
            logger.warning("no message arrived on \(options.filters.map(\.text).joined(separator: ", ")): no scenario to write")
            return true
        }
        let recording: Recording
        do {
            recording = try Recording.load(path: output.recordingPath)
        } catch {
            logger.error("the recording cannot be read back: \(error)")
            return false
        }
        do {
            try output.write(
                scenario: RecordingScenario.replay(recording, file: RecordOutput.recordingName, name: output.scenarioName),
                to: output.replayPath)
            logger.info("replay it: devsim run \(output.replayPath)")
            if options.infer, let infer = Self.infer {
                try output.write(scenario: infer(recording, output.scenarioName), to: output.inferredPath)
                logger.info("a model of it: devsim sample \(output.inferredPath)")
            }
        } catch {
            logger.error("\(error)")
            return false
        }
        return true
    }

    /// The recorder's settings from the flags: the broker, who to be there, TLS, and when to
    /// stop. Reads the password file and checks the TLS files now, before any connection.
    private func settings() throws -> RecordSettings {
        let common = options.common
        var settings = RecordSettings(path: "")
        if common.url != nil, common.host != nil || common.port != nil {
            throw UsageError(
                "--url gives the host and the port: leave out \(common.host != nil ? "--host" : "--port") "
                    + "(and DEVSIM_HOST, DEVSIM_PORT), or --url (DEVSIM_URL)")
        }
        settings.url = common.url
        settings.host = common.host
        settings.port = common.port
        settings.username = common.username
        settings.password = common.password
        if let file = common.passwordFile {
            settings.password = try UsageError.of { () throws(RunCheckError) in try CredentialFiles.password(at: file) }
        }
        if options.asksForTLS {
            if let url = common.url, !url.scheme.isSecure {
                throw UsageError(
                    "--url \(url.scheme.rawValue)://… has no TLS, which --ca, --cert, --key and --insecure are for: "
                        + "write \(url.scheme == .ws ? "wss" : "mqtts")://")
            }
            if (options.certificate == nil) != (options.key == nil) {
                throw UsageError(
                    options.certificate == nil ? "--key needs --cert, the certificate it is the key of" : "--cert needs --key, its key")
            }
            settings.tls = TLSSettings(ca: options.ca, certificate: options.certificate, key: options.key, insecure: options.insecure)
            let flags = ["ca": "--ca", "certificate": "--cert", "key": "--key"]
            if let (setting, problem) = settings.tlsFileProblems.first {
                throw UsageError("\(flags[setting] ?? setting): \(problem)")
            }
            // TLS on MQTT's own port for TLS, unless told otherwise.
            if common.url == nil, common.port == nil { settings.port = 8883 }
        }
        if let version = common.mqttProtocol { settings.protocolVersion = version }
        settings.clientID = options.clientID
        settings.filters = options.filters
        settings.qos = options.qos
        settings.duration = common.duration
        settings.messages = options.messages
        settings.connectTimeout = common.connectTimeout
        settings.connackTimeout = common.connackTimeout
        settings.statsInterval = common.quiet ? nil : common.statsInterval
        settings.logConnectionEvents = common.verbose
        if Self.redrawsStatus(options) { settings.liveStatus = Logger.standardError }
        if options.infer, Self.infer == nil {
            throw UsageError("--infer: this build of devsim cannot infer a scenario yet")
        }
        return settings
    }

    /// Whether the status line is one line redrawn in place, as `run`'s (`RunCommand.redrawsStatus`).
    static func redrawsStatus(_ options: RecordOptions) -> Bool {
        isatty(2) != 0 && !options.common.quiet && options.common.statsInterval != nil && options.common.logFormat == .text
    }
}
