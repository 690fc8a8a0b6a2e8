import Foundation

/// Reads scenario files (YAML or JSON) into validated `Scenario`s.
public enum ScenarioLoader {
    /// Loads the file at `path`; `${VAR}` and `${VAR:-default}` are taken from `environment`.
    /// Throws every problem found, each with its line and column.
    public static func load(file path: String, environment: [String: String]) throws(ScenarioError) -> Scenario {
        guard let data = FileManager.default.contents(atPath: path) else {
            var isDirectory: ObjCBool = false
            let reason = !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) ? "no such file"
                : isDirectory.boolValue ? "it is a directory, not a scenario file" : "the file cannot be read"
            throw ScenarioError([Diagnostic(file: path, line: 1, column: 1, message: "cannot load the scenario: \(reason)")])
        }
        return try load(bytes: [UInt8](data), file: path, environment: environment, generators: .standard)
    }

    /// Loads scenario text; `file` names it in diagnostics and anchors relative paths.
    public static func load(text: String, file: String, environment: [String: String]) throws(ScenarioError) -> Scenario {
        try load(bytes: Array(text.utf8), file: file, environment: environment, generators: .standard)
    }

    static func load(bytes: [UInt8], file: String, environment: [String: String],
                     generators: GeneratorRegistry) throws(ScenarioError) -> Scenario {
        let reader = ScenarioReader(file: file, generators: generators)
        let parsed = YAMLParser(bytes: bytes)
        var problems = parsed.problems
        let scenario = parsed.root.flatMap { root in
            reader.scenario(root.interpolated(environment, problems: &problems), defaultName: defaultName(of: file))
        }
        for problem in problems { reader.report(problem.mark, problem.message) }
        guard let scenario, reader.diagnostics.isEmpty else {
            throw ScenarioError(inFileOrder(reader.diagnostics))
        }
        return scenario
    }

    /// The file name without directory or extension: `scenarios/phone.yaml` → `phone`.
    static func defaultName(of file: String) -> String {
        let base = file.split(separator: "/").last.map(String.init) ?? file
        guard let dot = base.lastIndex(of: "."), dot != base.startIndex else { return base }
        return String(base[..<dot])
    }

    /// Sorted by position, keeping the order found at one position; an alias used twice repeats
    /// its node's problems, which are said once.
    private static func inFileOrder(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        var unique: [Diagnostic] = []
        for diagnostic in diagnostics where !unique.contains(diagnostic) { unique.append(diagnostic) }
        return unique.enumerated().sorted {
            ($0.element.line, $0.element.column, $0.offset) < ($1.element.line, $1.element.column, $1.offset)
        }.map(\.element)
    }
}
