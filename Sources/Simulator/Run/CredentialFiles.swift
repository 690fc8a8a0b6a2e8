import Signals

/// The secrets a run reads from files (`--password-file`, `--http-token-file`), which keep them
/// out of `ps` and of the environment: read before anything connects, to their end, so that a
/// pipe serves as well as a file (`--password-file <(pass show mqtt)`, `/dev/stdin`), with the
/// system's reason when one cannot be read.
public enum CredentialFiles {
    /// MQTT's longest password, and more than any token: a longer file is no secret's.
    static let limit = 65_535

    /// The broker's password in `path`: its text as it is, but for the line ends an editor leaves
    /// at its end (a password may begin or end with a space).
    public static func password(at path: String) throws(RunCheckError) -> String {
        let text = try self.text(at: path, flag: "--password-file")
        return String(text.reversed().drop(while: { $0.isNewline }).reversed())
    }

    /// The HTTP endpoint's token in `path`, without the white space around it. An empty file is
    /// refused: an empty token is one every request would carry.
    public static func token(at path: String) throws(RunCheckError) -> String {
        let text = String(
            try self.text(at: path, flag: "--http-token-file").drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace)
                .reversed())
        guard !text.isEmpty else { throw RunCheckError("--http-token-file: '\(path)' is empty") }
        return text
    }

    private static func text(at path: String, flag: String) throws(RunCheckError) -> String {
        let bytes: [UInt8]
        do throws(WholeFile.ReadError) {
            bytes = try WholeFile.bytes(at: path, limit: limit)
        } catch {
            throw RunCheckError("\(flag): cannot read '\(path)': \(error.reason)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw RunCheckError("\(flag): '\(path)' is not UTF-8 text") }
        return text
    }
}
