/// A mistake on the command line or in the environment: printed with the flag it concerns,
/// followed by a pointer to `--help`, and exit code 2.
struct UsageError: Error, Equatable, CustomStringConvertible {
    var message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String { message }
}
