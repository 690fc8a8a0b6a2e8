import Foundation

/// `devsim run SCENARIO` as the process tests run it: against the broker on `port` of this
/// machine's loopback (`--host 127.0.0.1 --port PORT`; without a port, the scenario's broker),
/// no status lines (`--stats-interval 0`) unless given another interval (`nil`: devsim's own),
/// and with `report: true` the JSON report beside the scenario, as `SCENARIO.json`.
///
/// ```swift
/// let run = try DevsimRun(file, port: broker.port, ["--duration", "2s"], report: true)
/// #expect(run.status == 0, "\(run.stderr)")
/// let figures = try run.report()
/// ```
public struct DevsimRun: Sendable {
    /// The exit code, or `nil` if the run did not end within its timeout (it is then killed).
    public let status: Int32?
    /// All it wrote to standard output.
    public let stdout: String
    /// All it wrote to standard error: its log.
    public let stderr: String
    /// Where `report: true` has the report written.
    public let reportFile: String

    /// Runs devsim on `file`, `extra` arguments after the rest, to its end or for `timeout`
    /// seconds at most.
    /// - Parameters:
    ///   - environment: variables added to (or overriding) the test process's environment.
    ///   - namespace: the network namespace to run it in, if not this one.
    public init(
        _ file: String, port: UInt16? = nil, _ extra: [String] = [], report: Bool = false, statsInterval: String? = "0",
        environment: [String: String] = [:], namespace: NetworkNamespace? = nil, timeout: Double = 30
    ) throws(TestSupportError) {
        let result = try DevsimProcess.runToCompletion(
            args: Self.arguments(file, port: port, extra, report: report, statsInterval: statsInterval), env: environment,
            namespace: namespace, timeout: timeout)
        (status, stdout, stderr) = result
        reportFile = file + ".json"
    }

    /// Starts devsim as `init` runs it and returns at once, for a test that acts while it runs.
    public static func start(
        _ file: String, port: UInt16? = nil, _ extra: [String] = [], report: Bool = false, statsInterval: String? = "0",
        environment: [String: String] = [:], namespace: NetworkNamespace? = nil
    ) throws(TestSupportError) -> DevsimProcess {
        try DevsimProcess(
            arguments: arguments(file, port: port, extra, report: report, statsInterval: statsInterval), environment: environment,
            namespace: namespace)
    }

    /// The report the run wrote (`report: true`), as JSON objects.
    public func report() throws -> [String: Any] {
        try RunFiles.report(reportFile)
    }

    /// The report the run wrote (`report: true`), decoded as `type` (`RunReport`).
    public func report<Report: Decodable>(as type: Report.Type) throws -> Report {
        try JSONDecoder().decode(type, from: Data(contentsOf: URL(fileURLWithPath: reportFile)))
    }

    private static func arguments(_ file: String, port: UInt16?, _ extra: [String], report: Bool, statsInterval: String?) -> [String] {
        let broker = port.map { ["--host", "127.0.0.1", "--port", String($0)] } ?? []
        return ["run", file] + broker + (report ? ["--report", file + ".json"] : [])
            + (statsInterval.map { ["--stats-interval", $0] } ?? [])
            + extra
    }
}
