/// What a run measured, as the fleet reads it from its counters, histograms and trackers: at
/// its end, and while it goes on for the service (`reason` then `.running`). Built in one place
/// (`Fleet`), and made into the report (`RunReport(result:…)`) and the live view from there.
public struct RunResult: Sendable {
    public var totals: Totals
    /// Connections up when the run ended, before the final DISCONNECT.
    package var connectionsUpAtEnd: Int
    public var connections: Int
    public var durationSeconds: Double
    public var reason: StopReason
    /// QoS 1/2 publish-to-acknowledgement times, and every tick's lateness, in nanoseconds.
    public var latency: Histogram
    public var lateness: Histogram
    /// Each device group's figures.
    public var groups: [(name: String, totals: Totals)]
    /// Connection problems by reason: refusals, failures to connect, lost connections.
    package var connectionErrors: [String: Int]
    /// The first connection each refusal of `connectionErrors` named (`client id d-7,
    /// devices.csv:8`), by its reason.
    package var connectionErrorsFirst: [String: String] = [:]
    /// Seconds from the start until every connection had been accepted once; `nil` if some never were.
    package var allConnectedSeconds: Double?
    /// Connections that tried to connect and were never accepted by the run's end.
    package var neverConnected = 0
    /// With `settings.verify`: the closed-loop check.
    public var verify: VerifySummary? = nil
    /// The reloads (SIGHUP) of the run, in order.
    public var reloads: [Reload] = []
    /// The groups whose devices take commands, and from each command's arrival to its
    /// answer, in nanoseconds.
    package var commandGroups: Set<String> = []
    package var commandLatency = Histogram()
    package var subscribeLatency = Histogram()
    /// How long the connections the broker accepted took to connect, phase by phase.
    public var connectTimings = ConnectTimings()
    /// The run interval by interval; `nil` without `settings.timelineInterval`.
    public var timeline: Timeline? = nil
    /// Each stage's figures under a load profile (`stages:`), those the run reached.
    public var stages: [StageFigures] = []
    /// The figures of each stage of a group's own profile, by the group's place in `groups`
    /// (two files may each have a group of one name): its counts.
    public var groupStages: [Int: [StageFigures]] = [:]
    /// With `settings.capacity`: the search's steps and answer.
    public var capacity: CapacityFigures? = nil
    /// Each subscriber group's figures (`subscribers:`), apart from the devices'.
    public var subscribers: [SubscriberFigures] = []
    /// Each broker of a cluster (`broker.hosts`); empty for one broker.
    public var hosts: [HostFigures] = []

    package init(
        totals: Totals, connectionsUpAtEnd: Int, connections: Int, durationSeconds: Double, reason: StopReason, latency: Histogram,
        lateness: Histogram, groups: [(name: String, totals: Totals)], connectionErrors: [String: Int], allConnectedSeconds: Double?,
        verify: VerifySummary? = nil
    ) {
        self.totals = totals
        self.connectionsUpAtEnd = connectionsUpAtEnd
        self.connections = connections
        self.durationSeconds = durationSeconds
        self.reason = reason
        self.latency = latency
        self.lateness = lateness
        self.groups = groups
        self.connectionErrors = connectionErrors
        self.allConnectedSeconds = allConnectedSeconds
        self.verify = verify
    }

    /// Said when a run that connected ends with some connections never up: exit 3 is for a run
    /// in which none came up, so without this line the others' silence would pass unseen.
    /// Names the most frequent connection error; `nil` when every connection that tried came up.
    package var neverConnectedWarning: String? {
        guard neverConnected > 0, reason.endedAConnectedRun else { return nil }
        let commonest = connectionErrors.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
        return "\(neverConnected) of \(Text.counted(connections, "connection")) never came up"
            + (commonest.map { " (\($0))" } ?? "") + ": their devices published nothing; "
            + "--expect neverConnected==0 fails a run on it"
    }
}
