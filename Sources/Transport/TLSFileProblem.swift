/// A file of a set of TLS settings that cannot serve, and why.
package struct TLSFileProblem: Sendable, Equatable, CustomStringConvertible {
    /// The setting that names the file: `ca`, `certificate` or `key`.
    package var setting: String
    package var file: String
    /// What is wrong, as the sentence goes on after the file's name: "does not exist".
    package var problem: String

    package var description: String { "'\(file)' \(problem)" }
}
