import Simulator

/// A mistake on the command line or in the environment: printed with the flag it concerns,
/// followed by a pointer to `--help`, and exit code 2.
struct UsageError: Error, Equatable, CustomStringConvertible {
    var message: String
    /// The command whose `--help` lists what the mistake concerns (`run`); `nil` for the
    /// command line as a whole.
    var command: String?

    init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }

    /// The same mistake, whichever help it points to.
    static func == (lhs: UsageError, rhs: UsageError) -> Bool { lhs.message == rhs.message }

    /// Where to look: `Try 'devsim run --help'.`
    var hint: String { "Try 'devsim \(command.map { "\($0) " } ?? "")--help'." }

    var description: String { message }
}

extension UsageError {
    /// `check()`'s result; what the library refuses (`RunCheckError`, `ReportFormatError`: a
    /// sentence each) is a usage error with the same message.
    static func of<T, Refusal: Error & CustomStringConvertible>(_ check: () throws(Refusal) -> T) throws(UsageError) -> T {
        do {
            return try check()
        } catch {
            throw UsageError(error.description)
        }
    }
}
