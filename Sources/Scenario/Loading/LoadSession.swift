import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#endif

/// One load of a scenario and the files it includes: a reader per file, and the chain of files
/// being read, to catch an include cycle. Problems stay with the reader of the file they are in.
final class LoadSession {
    /// The bytes of a file, or why there are none.
    typealias FileReader = (String) -> Result<[UInt8], FileProblem>

    struct FileProblem: Error {
        var reason: String
    }

    let environment: [String: String]
    /// Dotted paths (`broker.host`) the command line gives, left out of every file unread.
    let overridden: Set<String>
    let generators: GeneratorRegistry
    let readFile: FileReader
    /// Whether a group's `recording` may be read (not in a load that reads no other files), and
    /// each recording read, by path: several groups often replay one.
    var readsRecordings = true
    var recordings: [String: Result<Recording, ScenarioError>] = [:]
    /// Every file read, in the order first read.
    private(set) var readers: [ScenarioReader] = []
    /// The files being read, outermost first: standardized paths, and the paths as given.
    private var chain: [(key: String, path: String)] = []

    init(
        environment: [String: String], overridden: Set<String> = [], generators: GeneratorRegistry,
        readFile: @escaping FileReader
    ) {
        self.environment = environment
        self.overridden = overridden
        self.generators = generators
        self.readFile = readFile
    }

    /// Past this many problems the rest are counted, not listed: a file that is not a scenario at
    /// all (a log, a list of a million numbers) would otherwise bury the first, useful ones.
    static let maximumDiagnostics = 100

    /// Every problem of every file: the first file's first, each file's in file order; past
    /// `maximumDiagnostics`, one more that says how many were left out, where they start.
    var diagnostics: [Diagnostic] {
        let all = readers.flatMap { Self.inFileOrder($0.diagnostics) }
        guard all.count > Self.maximumDiagnostics else { return all }
        let first = all[Self.maximumDiagnostics]
        let omitted = all.count - Self.maximumDiagnostics
        return Array(all.prefix(Self.maximumDiagnostics)) + [
            Diagnostic(
                file: first.file, line: first.line, column: first.column,
                message: "\(omitted) more problems from here on are not listed; fix the ones above first")
        ]
    }

    var hasProblems: Bool { readers.contains { !$0.diagnostics.isEmpty } }

    /// Larger files are refused unread. A scenario of a thousand device groups is well under
    /// 1 MB, and the parser stops at `YAMLParser.maximumNodes` values, which YAML writes in a few
    /// MB; this bounds what the rest costs, one huge value or a file that is no scenario at all
    /// (a disk image given by mistake), at a few times its size in memory and a second or two.
    static let maximumFileSize = 16 * 1024 * 1024

    /// What is wrong with a file of `size` bytes.
    static func tooLarge(_ size: Int) -> String {
        "it is \(size) bytes; a scenario file may be at most 16 MB (\(maximumFileSize) bytes)"
    }

    /// Parses `bytes` as the file `file` and hands its reader and root node (with `${VAR}`
    /// replaced) to `read`, with `file` on the chain of files being read.
    func read<T>(_ bytes: [UInt8], file: String, _ read: (ScenarioReader, Node) -> T?) -> T? {
        let reader = ScenarioReader(file: file, source: bytes, generators: generators, session: self)
        readers.append(reader)
        guard bytes.count <= Self.maximumFileSize else {
            reader.report(Mark(line: 1, column: 1), "the file is too large: " + Self.tooLarge(bytes.count))
            return nil
        }
        chain.append((Self.standardized(file), file))
        defer { chain.removeLast() }
        let parsed = YAMLParser(bytes: bytes)
        var problems = parsed.problems
        let result = parsed.root.flatMap { root in
            read(reader, root.interpolated(environment, leavingOut: overridden, problems: &problems))
        }
        reader.withdrawReports(at: Set(problems.map(\.mark)))
        for problem in problems { reader.report(problem.mark, problem.message) }
        return result
    }

    /// The file `path` names (already resolved against the including file), read as an included
    /// file; a missing file or a cycle is reported by `reader` at `entry`, the include entry.
    func include(_ path: String, by reader: ScenarioReader, at entry: Node, defaults: GroupKeys) -> [DeviceGroup] {
        let standardized = Self.standardized(path)
        if let start = chain.firstIndex(where: { $0.key == standardized }) {
            let cycle = (chain[start...].map(\.path) + [path]).joined(separator: " → ")
            reader.report(entry.mark, "include cycle: \(cycle); a file cannot include itself, directly or through others")
            return []
        }
        let bytes: [UInt8]
        switch readFile(path) {
        case .success(let read): bytes = read
        case .failure(let problem):
            reader.report(entry.mark, "cannot include '\(entry.scalarText ?? path)': \(problem.reason) (looked for \(path))")
            return []
        }
        return read(bytes, file: path) { included, root in
            included.includedFile(root, by: reader.file, defaults: defaults)
        } ?? []
    }

    /// Reads a file from disk, saying why when it cannot.
    static func readFromDisk(_ path: String) -> Result<[UInt8], FileProblem> {
        var status = stat()
        if stat(path, &status) == 0, Int(status.st_size) > maximumFileSize {
            return .failure(FileProblem(reason: tooLarge(Int(status.st_size))))
        }
        if let data = FileManager.default.contents(atPath: path) { return .success([UInt8](data)) }
        var isDirectory = false
        let reason =
            !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            ? "no such file"
            : isDirectory ? "it is a directory, not a scenario file" : "the file cannot be read"
        return .failure(FileProblem(reason: reason))
    }

    /// `a/./b/../c.yaml` → `a/c.yaml`, so that one file reached by two spellings is one file.
    static func standardized(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Sorted by position, keeping the order found at one position; an alias used twice repeats
    /// its node's problems, which are said once.
    static func inFileOrder(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        var seen: Set<Diagnostic> = []
        let unique = diagnostics.filter { seen.insert($0).inserted }
        return unique.enumerated().sorted {
            ($0.element.line, $0.element.column, $0.offset) < ($1.element.line, $1.element.column, $1.offset)
        }.map(\.element)
    }
}
