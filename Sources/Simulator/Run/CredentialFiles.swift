import FoundationEssentials
import Glibc

/// The secrets a run reads from files (`--password-file`, `--http-token-file`), which keep them
/// out of `ps` and of the environment: read before anything connects, with the system's reason
/// when a file cannot be read.
public enum CredentialFiles {
    /// The broker's password in `path`: its text as it is, but for the line ends an editor leaves
    /// at its end (a password may begin or end with a space).
    public static func password(at path: String) throws(RunCheckError) -> String {
        guard let contents = FileManager.default.contents(atPath: path) else {
            // A file that exists and may be read, and still is not: a directory, say.
            let reason = access(path, R_OK) == 0 ? "it cannot be read" : String(cString: strerror(errno))
            throw RunCheckError("--password-file: cannot read '\(path)': \(reason)")
        }
        guard let text = String(data: contents, encoding: .utf8) else {
            throw RunCheckError("--password-file: '\(path)' is not UTF-8 text")
        }
        return String(text.reversed().drop(while: { $0.isNewline }).reversed())
    }

    /// The HTTP endpoint's token in `path`, without the white space around it. An empty file is
    /// refused: an empty token is one every request would carry.
    public static func token(at path: String) throws(RunCheckError) -> String {
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw RunCheckError("--http-token-file: cannot read '\(path)': \(String(cString: strerror(errno)))")
        }
        let text = String(
            String(decoding: contents, as: UTF8.self).drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        guard !text.isEmpty else { throw RunCheckError("--http-token-file: '\(path)' is empty") }
        return text
    }
}
