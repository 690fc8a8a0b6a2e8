import FoundationEssentials

/// Reads scenario files (YAML or JSON) into validated `Scenario`s.
public enum ScenarioLoader {
    /// Loads the file at `path`, and the files it includes; `${VAR}` and `${VAR:-default}` are
    /// taken from `environment`. The entries at the dotted paths of `overridden` (`broker.host`:
    /// what the command line gives instead) are left out unread, so their `${VAR}`s need not be
    /// set. Throws every problem found, each with its file, line and column.
    public static func load(
        file path: String, environment: [String: String], overridden: Set<String> = []
    ) throws(ScenarioError) -> Scenario {
        let bytes: [UInt8]
        switch LoadSession.readFromDisk(path) {
        case .success(let read): bytes = read
        case .failure(let problem):
            throw ScenarioError([Diagnostic(file: path, line: 1, column: 1, message: "cannot load the scenario: \(problem.reason)")])
        }
        return try load(bytes: bytes, file: path, environment: environment, overridden: overridden, generators: .standard)
    }

    /// Loads scenario text; `file` names it in diagnostics and anchors relative paths (those of
    /// the files it includes too, which are read from disk).
    public static func load(text: String, file: String, environment: [String: String]) throws(ScenarioError) -> Scenario {
        try load(bytes: Array(text.utf8), file: file, environment: environment, generators: .standard)
    }

    static func load(
        bytes: [UInt8], file: String, environment: [String: String], overridden: Set<String> = [],
        generators: GeneratorRegistry, readFile: @escaping LoadSession.FileReader = LoadSession.readFromDisk,
        readsRecordings: Bool = true
    ) throws(ScenarioError) -> Scenario {
        let session = LoadSession(environment: environment, overridden: overridden, generators: generators, readFile: readFile)
        session.readsRecordings = readsRecordings
        let scenario = session.read(bytes, file: file) { reader, root in
            reader.scenario(root, defaultName: defaultName(of: file))
        }
        guard let scenario, !session.hasProblems else {
            throw ScenarioError(session.diagnostics)
        }
        return scenario
    }

    /// The file name without directory or extension: `scenarios/phone.yaml` → `phone`.
    static func defaultName(of file: String) -> String {
        let base = file.split(separator: "/").last.map(String.init) ?? file
        guard let dot = base.lastIndex(of: "."), dot != base.startIndex else { return base }
        return String(base[..<dot])
    }
}
