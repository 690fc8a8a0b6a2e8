import Service
import Simulator

/// `devsim run`: the options parsed, carried out by the library's `Run` (which loads, checks,
/// runs, reports and judges), logged as they ask.
enum RunCommand {
    static func execute(_ options: RunOptions, environment: [String: String]) -> ExitCode {
        let logger = Logger.ofCommand(
            format: options.logFormat, quiet: options.quiet, verbose: options.verbose, redrawsStatus: options.redrawsStatus)
        return Run(options: options, environment: environment, version: Help.versionNumber, logger: logger).execute()
    }
}
