/// devsim's exit codes, as the README documents them.
enum ExitCode: Int32 {
    /// The run ended as asked (duration, message count, or a signal).
    case success = 0
    /// A runtime failure.
    case failure = 1
    /// Bad usage or an invalid scenario.
    case usage = 2
    /// No connection could be established within the connect timeout.
    case noConnection = 3
    /// The run ended, but broke at least one `--expect` assertion.
    case expectationFailed = 4

    /// What the code says, in a few words, for a line that names it.
    var words: String {
        switch self {
        case .success: "the run ended as asked"
        case .failure: "a runtime failure"
        case .usage: "bad usage or an invalid scenario"
        case .noConnection: "no connection was ever accepted"
        case .expectationFailed: "an --expect assertion or an --slo failed"
        }
    }
}
