import Glibc
import Report
import Scenario

/// The directory `devsim record --output DIR` writes: the recording, `recording.jsonl`, and
/// the scenarios made from it, `replay.yaml` and, with `--infer`, `inferred.yaml`.
package struct RecordOutput: Sendable {
    package let directory: String
    /// The directories `prepare` made, the deepest last.
    private(set) var made: [String] = []

    package static let recordingName = "recording.jsonl"
    package static let replayName = "replay.yaml"
    package static let inferredName = "inferred.yaml"

    package var recordingPath: String { directory + "/" + Self.recordingName }
    package var replayPath: String { directory + "/" + Self.replayName }
    package var inferredPath: String { directory + "/" + Self.inferredName }

    /// The scenarios' `name:`: the directory's own name, `recording` when it has none to give.
    package var scenarioName: String {
        let last = directory.split(separator: "/").last.map(String.init) ?? ""
        return last.isEmpty || last == "." || last == ".." ? "recording" : last
    }

    /// The directory, made with its parents if missing. One that holds a recording already is
    /// refused unless `force`: the recording, and the scenarios beside it, are then replaced
    /// once the new one begins (`RecordSettings.replacing`). Throws what is in the way, in words
    /// that go after the flag.
    package static func prepare(_ directory: String, force: Bool) throws(RecordOutputError) -> RecordOutput {
        guard !directory.isEmpty else { throw RecordOutputError("expected a directory, found an empty name") }
        var trimmed = directory
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        var output = RecordOutput(directory: trimmed)
        try makeDirectory(trimmed, made: &output.made)
        guard access(trimmed, W_OK) == 0 else {
            throw RecordOutputError("'\(trimmed)' cannot be written: \(String(cString: strerror(errno)))")
        }
        var info = stat()
        if stat(output.recordingPath, &info) == 0 {
            guard force else {
                throw RecordOutputError(
                    "'\(trimmed)' already holds a recording (\(output.recordingPath)): name another directory, or add --force to replace it"
                )
            }
            guard info.st_mode & S_IFMT == S_IFREG, access(output.recordingPath, W_OK) == 0 else {
                throw RecordOutputError("'\(output.recordingPath)' cannot be replaced: it is not a file that can be written")
            }
        }
        return output
    }

    /// The scenarios made from a recording here, which a new one replaces.
    package var scenarioPaths: [String] { [replayPath, inferredPath] }

    /// `path` and its parents, as `mkdir -p`.
    private static func makeDirectory(_ path: String, made: inout [String]) throws(RecordOutputError) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw RecordOutputError("'\(path)' exists and is not a directory") }
            return
        }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            try makeDirectory(String(path[..<slash]), made: &made)
        }
        if mkdir(path, 0o755) == 0 {
            made.append(path)
        } else if errno != EEXIST {
            throw RecordOutputError("cannot make the directory '\(path)': \(String(cString: strerror(errno)))")
        }
    }

    /// Removes the directories `prepare` made, if they are still empty: nothing was recorded.
    package func removeMadeDirectories() {
        for directory in made.reversed() { rmdir(directory) }
    }

    /// Writes `text` as the scenario at `path`, whole or not at all.
    package func write(scenario text: String, to path: String) throws(OutputFileError) {
        try OutputFile.write(Array(text.utf8), to: path)
    }
}

/// Why `--output DIR` cannot take the recording.
package struct RecordOutputError: Error, Sendable, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }
}
