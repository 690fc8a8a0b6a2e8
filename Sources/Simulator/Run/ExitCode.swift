import Mosquitto
import Report

/// devsim's exit codes, as the README documents them: what a command returns, and the command
/// line exits with.
public enum ExitCode: Int32, Sendable {
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
    public var words: String {
        switch self {
        case .success: "the run ended as asked"
        case .failure: "a runtime failure"
        case .usage: "bad usage or an invalid scenario"
        case .noConnection: "no connection was ever accepted"
        case .expectationFailed: "an --expect assertion or an --slo failed"
        }
    }
}

extension ExitCode {
    /// What a run that ended for `reason` exits with: 4 when an `--expect` assertion failed or a
    /// capacity search found no rate that met every SLO each time it was held, but 3 when no
    /// connection was ever accepted, which says more than the assertions it broke.
    public static func ofRun(ended reason: StopReason, verdicts: [Verdict], capacity: CapacityFigures?) -> ExitCode {
        if case .noConnection = reason { return .noConnection }
        if verdicts.contains(where: { !$0.passed }) || capacity?.foundNoRate == true { return .expectationFailed }
        return .success
    }

    /// The code once a report could not be written: a run that ended as asked exits 1, which
    /// says the report is missing; a run that failed keeps its own verdict, which says more.
    public var withReportMissing: ExitCode { self == .success ? .failure : self }

    /// What a command that threw `error` exits with, its message logged: a refusal of the
    /// command line's asks (`RunCheckError`) or broker settings libmosquitto refused are
    /// usage (2), anything else a failure (1).
    public static func after(_ error: any Error, logger: Logger) -> ExitCode {
        switch error {
        case let error as RunCheckError:
            logger.error(error.message)
            return .usage
        case let error as ClientSetupError:
            logger.error("the broker settings were refused: \(error)")
            return .usage
        default:
            logger.error("\(error)")
            return .failure
        }
    }
}
