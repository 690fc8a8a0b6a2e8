/// Whether the fleet is ready: one rule for systemd's `READY=1` and the service's `/readyz`, so
/// that a unit started by systemd and a pod behind Kubernetes' probe are ready at the same moment.
/// Ready once `--ready` percent of the connections wanted up are up; connections down on purpose
/// (paused by a command, out by the stages) are not wanted, so pausing a group does not take the
/// endpoint that resumes it out of service. A fleet of no connection at all is never ready.
public struct Readiness: Sendable, Equatable {
    /// Connections up now.
    public var up: Int
    /// Those that should be up: all but those down on purpose.
    public var wanted: Int
    public var all: Int
    /// Those down on purpose: paused by a command, or out by the stages.
    public var paused: Int

    public init(up: Int, wanted: Int, all: Int, paused: Int) {
        self.up = up
        self.wanted = wanted
        self.all = all
        self.paused = paused
    }

    /// The share of the wanted connections that are up, in percent: 100 when every connection
    /// is down on purpose, 0 when there is none.
    public var percent: Double { wanted > 0 ? Double(up) * 100 / Double(wanted) : all > 0 ? 100 : 0 }

    /// Whether at least `threshold` percent of the wanted connections are up (`--ready`, above 0
    /// and at most 100).
    public func isReady(percent threshold: Double) -> Bool { all > 0 && percent >= threshold }
}
