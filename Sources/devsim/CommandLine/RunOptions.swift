import MQTT
import Report
import Scenario
import Service
import Simulator

/// `devsim run`'s options after flags and environment are merged (a flag wins over its variable).
struct RunOptions: Equatable {
    var scenarios: [String] = []
    /// `--url`: host, port, transport and TLS in one.
    var url: BrokerURL?
    /// A `--url` list: the cluster's nodes (`url` is the first).
    var urlHosts: BrokerHosts?
    /// `--bind`: the source addresses, over the scenario's.
    var bind: BindAddresses?
    var host: String?
    var port: Int?
    var username: String?
    var password: String?
    /// `--anonymous`: leave out the scenario's user name and password.
    var anonymous = false
    /// `--retry-refused`: go on when every connection's credentials were refused.
    var retryRefused = false
    /// `--discovery-cleanup`: a clean end deletes the discovered devices' entities.
    var discoveryCleanup = false
    /// `--protocol`: the MQTT version, over the scenario's.
    var mqttProtocol: ProtocolVersion?
    var passwordFile: String?
    var duration: Duration?
    var messages: Int?
    var seed: UInt64?
    /// `--report`, each file with its format.
    var reports: [ReportOutput] = []
    var dryRun = false
    var logFormat: Logger.Format = .text
    var connectTimeout = Defaults.connectTimeout
    var connackTimeout = Defaults.connackTimeout
    var drainTimeout = Defaults.drainTimeout
    var statsInterval: Duration? = Defaults.statsInterval
    var timelineInterval: Duration? = Defaults.timelineInterval
    var loops: Int?
    var maxInFlight = Defaults.maxInFlight
    /// `--ack-timeout`: over the scenario's `broker.ackTimeout`.
    var ackTimeout: Duration?
    var quiet = false
    var verify = false
    var verbose = false
    /// `--expect` assertions, judged against the report when the run ends (exit 4 if one fails).
    var expectations: [Assertion] = []
    /// `--find-capacity`: search the highest rate that meets every `--slo`.
    var findCapacity = false
    var slos: [Assertion] = []
    /// `--step` and `--warmup`; `nil`: not given (the defaults, with `--find-capacity`).
    var capacityStep: Duration?
    var capacityWarmUp: Duration?
    /// `--report-format`: the format of every `--report` whose name says none.
    var reportFormat: ReportFormat = .json
    /// `--shard K/N`: only this slice of the devices.
    var shard: Shard?
    /// `--http`: where the service listens; nil for no service.
    var http: HTTPAddress?
    var httpTokenFile: String?
    /// `--ready`: the share of connections up, in percent, from which `/readyz` says ready.
    var readyPercent = DevsimService.defaultReadyPercent
}

extension RunOptions {
    /// The scenario keys the command line gives values for, as dotted paths: left out of the
    /// files unread, so `host: ${BROKER_HOST}` needs no BROKER_HOST under `--host`.
    var overriddenBrokerKeys: Set<String> {
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
}
