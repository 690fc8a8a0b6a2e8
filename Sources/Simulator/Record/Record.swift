import Scenario

/// `devsim record`, in the library: the settings checked (the password file read, the TLS
/// files), `--output DIR` prepared, the recorder run in its group (the signals, then the
/// recorder), and the recording concluded: the summary, `replay.yaml` and, with `--infer`,
/// `inferred.yaml`, and the exit code. The command line parses, and exits with the code
/// `execute` returns.
package struct Record {
    /// As the command line fills them: `passwordFile` is read here, `tls` holds the TLS flags
    /// as they were given (`nil` without one), `path` is `output`'s.
    package var settings: RecordSettings
    /// `--output DIR`.
    package var output: String
    /// `--force`: a recording already in `output` is replaced.
    package var force: Bool
    /// What `--infer` writes as `inferred.yaml`, from the recording and the scenario's name;
    /// `nil` without `--infer`.
    package var infer: (@Sendable (Recording, String) -> String)?
    package var logger: Logger

    package init(
        settings: RecordSettings, output: String, force: Bool, infer: (@Sendable (Recording, String) -> String)?, logger: Logger
    ) {
        self.settings = settings
        self.output = output
        self.force = force
        self.infer = infer
        self.logger = logger
    }

    package func execute() -> ExitCode {
        do {
            return try record()
        } catch {
            return .after(error, logger: logger)
        }
    }

    private func record() throws -> ExitCode {
        var settings = try checked()
        let output: RecordOutput
        do {
            output = try RecordOutput.prepare(self.output, force: force)
        } catch {
            throw RunCheckError("--output: \(error)")
        }
        settings.path = output.recordingPath
        settings.replacing = output.scenarioPaths
        let recorder = try Recorder(settings: settings, logger: logger)
        return try ServiceGroup([ServiceGroup.Member(SignalService())])
            .run(recorder.run, stop: { recorder.requestStop() }, concluding: { conclude($0, in: output) })
    }

    private func conclude(_ result: RecordResult, in output: RecordOutput) -> ExitCode {
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
            logger.warning("no message arrived on \(settings.filters.map(\.text).joined(separator: ", ")): no scenario to write")
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
            if let infer {
                try output.write(scenario: infer(recording, output.scenarioName), to: output.inferredPath)
                logger.info("a model of it: devsim sample \(output.inferredPath)")
            }
        } catch {
            logger.error("\(error)")
            return false
        }
        return true
    }

    /// The settings with the password file read and the TLS flags checked, before any
    /// connection; TLS on MQTT's own port for TLS, unless told otherwise.
    private func checked() throws(RunCheckError) -> RecordSettings {
        var settings = self.settings
        try RunChecks.checkBroker(url: settings.url, host: settings.host, port: settings.port)
        if let file = settings.passwordFile { settings.password = try CredentialFiles.password(at: file) }
        guard let tls = settings.tls else { return settings }
        if let url = settings.url, !url.scheme.isSecure {
            throw RunCheckError(
                "--url \(url.scheme.rawValue)://… has no TLS, which --ca, --cert, --key and --insecure are for: "
                    + "write \(url.scheme == .ws ? "wss" : "mqtts")://")
        }
        if (tls.certificate == nil) != (tls.key == nil) {
            throw RunCheckError(
                tls.certificate == nil ? "--key needs --cert, the certificate it is the key of" : "--cert needs --key, its key")
        }
        let flags = ["ca": "--ca", "certificate": "--cert", "key": "--key"]
        if let (setting, problem) = settings.tlsFileProblems.first {
            throw RunCheckError("\(flags[setting] ?? setting): \(problem)")
        }
        if settings.url == nil, settings.port == nil { settings.port = 8883 }
        return settings
    }
}
