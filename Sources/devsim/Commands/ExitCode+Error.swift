import Logging
import Mosquitto

extension ExitCode {
    /// What a command that threw `error` exits with, its message logged: a usage mistake or
    /// broker settings libmosquitto refused are usage (2), anything else a failure (1).
    static func after(_ error: any Error, logger: Logger) -> ExitCode {
        switch error {
        case let error as UsageError:
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
