/// What ended a run: the fleet's control sets it, the report's `outcome` says it. One type for
/// both, so the run's end and its report cannot disagree on the cases.
public enum StopReason: Sendable, Equatable {
    case duration
    case messages
    case requested
    /// A capacity search (`settings.capacity`) is over.
    case searched
    /// No connection got a CONNACK within the connect timeout; the text says why.
    case noConnection(String)
    /// Not ended: the run as the service sees it while it goes on.
    case running

    /// Whether this reason is one a run gives when it ended as asked, not for want of a broker.
    package var endedAConnectedRun: Bool {
        if case .noConnection = self { return false }
        return true
    }

    /// What ended the run, in a few words.
    package var description: String {
        switch self {
        case .duration: "ended by --duration"
        case .messages: "ended by --messages"
        case .requested: "stopped"
        case .searched: "the capacity search is over"
        case .noConnection: "no connection"
        case .running: "running"
        }
    }
}
