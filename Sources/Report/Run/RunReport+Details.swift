import Signals

extension RunReport {
    /// Everything the report says besides its counted figures.
    public struct Details: Codable, Sendable, Equatable {
        public var scenarios: [String]
        public var seed: UInt64
        package var outcome: String
        public var connectionsUp: Int
        public var connections: Int
        public var durationSeconds: Double
        /// Messages published per second over the run.
        public var ratePerSecond: Double
        /// Sensor faults that fired in the payloads made: `{"spike":n,"stuck":n,"dropout":n,"drift":n}`.
        /// Spikes, dropouts and drifts count publishes they changed; stuck counts episodes. Payloads
        /// made while offline count too, since their values were made.
        package var faults: FaultCounts
        /// QoS 1/2 publish-to-acknowledgement latency; absent when nothing was acknowledged.
        public var latency: Percentiles?
        /// How late messages were published after their ticks' deadlines, time spent queued included.
        public var lateness: Percentiles
        /// Each device group's figures, in scenario order.
        public var groups: [GroupFigures]
        /// Connection problems by reason (refused, unreachable, lost), and how often each happened.
        package var connectionErrors: [String: Int]
        /// For a refusal among `connectionErrors`, the first connection refused so, by its reason:
        /// `client id meter-17, devices.csv:18` (the credentials file's row, when its secrets came
        /// from one); absent when nothing was refused.
        package var connectionErrorsFirst: [String: String]? = nil
        /// The QoS 1/2 messages the broker refused (`refused`), by reason; absent when none was.
        public var refusals: Refusals? = nil
        /// Seconds from the start until every connection had been accepted once.
        package var allConnectedSeconds: Double?
        /// Connections that tried and were never accepted by the run's end, so that their
        /// devices published nothing; absent when every one that tried came up.
        package var neverConnected: Int? = nil
        /// The closed-loop check's figures with `run --verify`; absent without it.
        public var verify: VerifySummary? = nil
        /// The `--expect` verdicts, in the order given; absent when none were asked for.
        public var expectations: [Verdict]? = nil
        /// The slice of the fleet this run drove (`--shard K/N`): `{"index":K,"count":N}`; absent
        /// for the whole fleet, and in a merged report.
        public var shard: Shard? = nil
        /// The raw histograms behind `latency` and `lateness`, so `devsim report merge` can add up
        /// shard reports' percentiles exactly. Written by every run; absent in older reports.
        public var histograms: ReportHistograms? = nil
        /// The reloads of the scenario files (SIGHUP) while the run went on, with what each did;
        /// absent when there was none.
        public var reloads: [Reload]? = nil
        /// The commands to the devices, with `commands:` groups; absent without any.
        public var commands: CommandCounts? = nil
        /// From a command's arrival to its answer's publish; absent when nothing was answered.
        public var commandLatency: Percentiles? = nil
        /// From each CONNACK to the SUBACK of the command topics; absent without commands.
        public var commandSubscribeLatency: Percentiles? = nil
        /// How long connecting took, each phase's percentiles over the connections the broker
        /// accepted (`ConnectTimings`); absent when none was.
        public var connectTimings: ConnectPhases<Percentiles>? = nil
        /// The run interval by interval (see `Timeline`); absent with `--timeline-interval 0`.
        public var timeline: Timeline? = nil
        /// Each stage's figures under a load profile (`stages:`), those the run reached; absent
        /// without stages.
        public var stages: [StageFigures]? = nil
        /// `run --find-capacity`'s steps and answer; absent without it.
        public var capacity: CapacityFigures? = nil
        /// Each subscriber group's figures (`subscribers:`), in scenario order; absent without
        /// any. Nothing they received is in the figures above, which are the devices'.
        public var subscribers: [SubscriberFigures]? = nil
        /// Each broker of a cluster (`broker.hosts`): its connections and messages; absent
        /// for one broker.
        public var hosts: [HostFigures]? = nil
    }
}
