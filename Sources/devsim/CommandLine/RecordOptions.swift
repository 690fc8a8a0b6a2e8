import MQTT
import Scenario
import Service

/// `devsim record`'s options after flags and environment are merged.
struct RecordOptions: Equatable {
    /// What it shares with `run` (the broker, the credentials, `--duration`, the connect
    /// timeout, the log), parsed as `run` parses it, from the same flags and variables.
    var common = RunOptions()
    /// `--topic`, in order, each once.
    var filters: [TopicFilter] = []
    /// `--qos`: the subscriptions'.
    var qos: QoS = .exactlyOnce
    /// `--messages`: stop after this many recorded.
    var messages: Int?
    /// `--output DIR`.
    var output: String?
    var force = false
    var infer = false
    var clientID: String?
    /// `--ca`, `--cert`, `--key`, `--insecure`.
    var ca: String?
    var certificate: String?
    var key: String?
    var insecure = false

    /// Whether a TLS flag was given.
    var asksForTLS: Bool { ca != nil || certificate != nil || key != nil || insecure }
}
