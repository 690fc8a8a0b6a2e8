import Glibc
import MQTT
import Report
import Scenario
import Simulator

/// `devsim run`'s options after flags and environment are merged (a flag wins over its variable):
/// what the command line fills, and `Run` carries out.
package struct RunOptions: Equatable, Sendable {
    package var scenarios: [String] = []
    /// `--url`: host, port, transport and TLS in one.
    package var url: BrokerURL?
    /// A `--url` list: the cluster's nodes (`url` is the first).
    package var urlHosts: BrokerHosts?
    /// `--bind`: the source addresses, over the scenario's.
    package var bind: BindAddresses?
    package var host: String?
    package var port: Int?
    package var username: String?
    package var password: String?
    /// `--anonymous`: leave out the scenario's user name and password.
    package var anonymous = false
    /// `--retry-refused`: go on when every connection's credentials were refused.
    package var retryRefused = false
    /// `--discovery-cleanup`: a clean end deletes the discovered devices' entities.
    package var discoveryCleanup = false
    /// `--protocol`: the MQTT version, over the scenario's.
    package var mqttProtocol: ProtocolVersion?
    package var passwordFile: String?
    package var duration: Duration?
    package var messages: Int?
    package var seed: UInt64?
    /// `--report`, each file with its format.
    package var reports: [ReportOutput] = []
    package var dryRun = false
    package var logFormat: Logger.Format = .text
    package var connectTimeout = Defaults.connectTimeout
    package var connackTimeout = Defaults.connackTimeout
    package var drainTimeout = Defaults.drainTimeout
    package var statsInterval: Duration? = Defaults.statsInterval
    package var timelineInterval: Duration? = Defaults.timelineInterval
    package var loops: Int?
    package var maxInFlight = Defaults.maxInFlight
    /// `--ack-timeout`: over the scenario's `broker.ackTimeout`.
    package var ackTimeout: Duration?
    package var quiet = false
    package var verify = false
    package var verbose = false
    /// `--expect` assertions, judged against the report when the run ends (exit 4 if one fails).
    package var expectations: [Assertion] = []
    /// `--find-capacity`: search the highest rate that meets every `--slo`.
    package var findCapacity = false
    package var slos: [Assertion] = []
    /// `--step` and `--warmup`; `nil`: not given (the defaults, with `--find-capacity`).
    package var capacityStep: Duration?
    package var capacityWarmUp: Duration?
    /// `--report-format`: the format of every `--report` whose name says none.
    package var reportFormat: ReportFormat = .json
    /// `--shard K/N`: only this slice of the devices.
    package var shard: Shard?
    /// `--http`: where the service listens; nil for no service.
    package var http: HTTPAddress?
    package var httpTokenFile: String?
    /// `--ready`: the share of connections up, in percent, from which `/readyz` says ready.
    package var readyPercent = DevsimService.defaultReadyPercent

    package init() {}
}

extension RunOptions {
    /// The scenario keys the command line gives values for, as dotted paths: left out of the
    /// files unread, so `host: ${BROKER_HOST}` needs no BROKER_HOST under `--host`.
    package var overriddenBrokerKeys: Set<String> {
        var keys: Set<String> = []
        if host != nil { keys.insert("broker.host") }
        if port != nil { keys.insert("broker.port") }
        if let url {
            keys.formUnion(["broker.url", "broker.host", "broker.port", "broker.transport", "broker.path"])
            if url.username != nil { keys.insert("broker.username") }
        }
        // One broker named on the command line stands for the file's cluster too.
        if url != nil || host != nil { keys.formUnion(["broker.hosts", "broker.spread"]) }
        if bind != nil { keys.insert("broker.bind") }
        if mqttProtocol != nil { keys.insert("broker.protocol") }
        if ackTimeout != nil { keys.insert("broker.ackTimeout") }
        if username != nil || anonymous { keys.insert("broker.username") }
        if password != nil || passwordFile != nil || anonymous { keys.insert("broker.password") }
        return keys
    }

    /// Whether the status line is one line redrawn in place: on a terminal, for text logs, unless
    /// `--quiet` or `--stats-interval 0` asked for none. In CI (no terminal) it is a plain line
    /// every `--stats-interval`.
    package var redrawsStatus: Bool {
        isatty(2) != 0 && !quiet && statsInterval != nil && logFormat == .text && !dryRun
    }
}
