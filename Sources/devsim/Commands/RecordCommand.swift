import Glibc
import MQTT
import Simulator

/// `devsim record`: the options parsed into the recorder's settings, carried out by the
/// library's `Record` (which checks them, records, and writes the scenarios of the recording).
enum RecordCommand {
    static func execute(_ options: RecordOptions, environment: [String: String]) -> ExitCode {
        let common = options.common
        let logger = Logger.ofCommand(
            format: common.logFormat, quiet: common.quiet, verbose: common.verbose, redrawsStatus: redrawsStatus(options))
        if options.infer, infer == nil {
            logger.error("--infer: this build of devsim cannot infer a scenario yet")
            return .usage
        }
        let record = Record(
            settings: settings(options), output: options.output ?? ".", force: options.force, infer: options.infer ? infer : nil,
            logger: logger)
        return record.execute()
    }

    /// The recorder's settings from the flags: the broker, who to be there, TLS, and when to
    /// stop. `Record` reads the password file and checks the TLS files.
    private static func settings(_ options: RecordOptions) -> RecordSettings {
        let common = options.common
        var settings = RecordSettings(path: "")
        settings.url = common.url
        settings.host = common.host
        settings.port = common.port
        settings.username = common.username
        settings.password = common.password
        settings.passwordFile = common.passwordFile
        if options.asksForTLS {
            settings.tls = TLSSettings(ca: options.ca, certificate: options.certificate, key: options.key, insecure: options.insecure)
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
        if redrawsStatus(options) { settings.liveStatus = Logger.standardError }
        return settings
    }

    /// Whether the status line is one line redrawn in place, as `run`'s (`RunOptions.redrawsStatus`).
    static func redrawsStatus(_ options: RecordOptions) -> Bool {
        isatty(2) != 0 && !options.common.quiet && options.common.statsInterval != nil && options.common.logFormat == .text
    }
}
