import Simulator

extension Logger {
    /// The log of `run` or `record` on standard error: warnings only with `--quiet`, debug lines
    /// with `--verbose`. On a terminal the status line is redrawn in place, and a log line first
    /// clears it.
    static func ofCommand(format: Logger.Format, quiet: Bool, verbose: Bool, redrawsStatus: Bool) -> Logger {
        let level: Logger.Level = quiet ? .warning : verbose ? .debug : .info
        let sink: @Sendable (String) -> Void = { line in
            Logger.standardError(redrawsStatus ? "\r\u{1B}[K" + line : line)
        }
        return Logger(format: format, minimumLevel: level, sink: sink)
    }
}
