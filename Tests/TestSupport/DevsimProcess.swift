import Glibc

/// Runs the built `devsim` executable (or any other) the way a user would, for process tests.
///
/// ```swift
/// let devsim = try DevsimProcess(arguments: ["run", "scenario.yaml"], environment: ["NO_COLOR": "1"])
/// devsim.sendSignal(SIGTERM)
/// #expect(devsim.waitUntilExit(timeout: 5) == 0)
/// ```
public final class DevsimProcess: Sendable {
    /// The running child; its output is captured in memory.
    public let process: ChildProcess

    /// Starts `executable` (default: ``locateDevsim()``) with `arguments`.
    /// - Parameters:
    ///   - environment: variables added to (or overriding) the test process's environment.
    ///   - namespace: the network namespace to start it in (through `nsenter`), if not this one.
    public init(
        executable: String? = nil,
        arguments: [String] = [],
        environment: [String: String] = [:],
        namespace: NetworkNamespace? = nil
    ) throws(TestSupportError) {
        let path: String
        if let executable { path = executable } else { path = try Self.locateDevsim() }
        let command = namespace?.command(path, arguments) ?? (executable: path, arguments: arguments)
        process = try ChildProcess(
            executable: command.executable,
            arguments: command.arguments,
            environment: Self.inheritedEnvironment().merging(environment) { _, override in override })
    }

    deinit {
        // A process test that failed half-way must not leave devsim running.
        if process.isRunning { process.terminate(grace: 1) }
    }

    /// The child's process id.
    public var pid: pid_t { process.pid }
    /// Standard output so far.
    public var stdout: String { process.stdoutText }
    /// Standard error so far.
    public var stderr: String { process.stderrText }
    /// Whether the child is still running.
    public var isRunning: Bool { process.isRunning }

    /// Sends `signal` (e.g. `SIGTERM`, `SIGINT`) unless the child has exited.
    public func sendSignal(_ signal: Int32) { process.sendSignal(signal) }

    /// Waits at most `timeout` seconds for the child to exit; the captured output is complete
    /// when this returns a status.
    /// - Returns: the exit code (128 + signal number if killed by a signal), or `nil` on timeout.
    @discardableResult
    public func waitUntilExit(timeout: Double) -> Int32? {
        guard let status = process.waitUntilExit(timeout: timeout) else { return nil }
        process.finishReaders(timeout: 1)
        return status
    }

    /// Waits at most `timeout` seconds until standard output (or error, with `inStderr`)
    /// contains `text`: a way to know the child reached some state before poking it.
    public func waitForOutput(containing text: String, inStderr: Bool = false, timeout: Double) -> Bool {
        TestClock.wait(timeout: timeout, interval: 0.01) {
            (inStderr ? stderr : stdout).contains(text)
        }
    }

    /// `SIGTERM`, then `SIGKILL` after `grace` seconds.
    @discardableResult
    public func terminate(grace: Double = 3) -> Int32? { process.terminate(grace: grace) }

    /// Runs `executable` (default: devsim) to completion and returns what it did.
    /// - Returns: `status` is `nil` if the child did not finish within `timeout` seconds (it is
    ///   then killed).
    public static func runToCompletion(
        executable: String? = nil,
        args: [String] = [],
        env: [String: String] = [:],
        namespace: NetworkNamespace? = nil,
        timeout: Double
    ) throws(TestSupportError) -> (status: Int32?, stdout: String, stderr: String) {
        let child = try DevsimProcess(executable: executable, arguments: args, environment: env, namespace: namespace)
        let status = child.waitUntilExit(timeout: timeout)
        if status == nil { child.process.terminate(grace: 0.5) }
        return (status, child.stdout, child.stderr)
    }

    /// The path of the `devsim` executable to test: `$DEVSIM_BINARY` if set, otherwise `devsim`
    /// in the build products directory holding the running test binary (e.g. `.build/debug/`).
    /// - Parameter environment: where to look for `DEVSIM_BINARY`; `nil` means this process's
    ///   environment (tests pass a dictionary rather than calling `setenv`, which races).
    public static func locateDevsim(environment: [String: String]? = nil) throws(TestSupportError) -> String {
        let override = environment.map { $0["DEVSIM_BINARY"] } ?? getenv("DEVSIM_BINARY").map { String(cString: $0) }
        if let override, !override.isEmpty {
            guard access(override, X_OK) == 0 else {
                throw TestSupportError("DEVSIM_BINARY=\(override) is not an executable file")
            }
            return override
        }
        guard let testBinary = currentExecutablePath() else {
            throw TestSupportError("cannot read /proc/self/exe to find the build products directory")
        }
        // Walk up a few levels: on Linux the test binary sits in the products directory itself,
        // in a bundle layout (`X.xctest/Contents/MacOS/X`) it is nested deeper.
        var directory = testBinary
        for _ in 0..<4 {
            directory = parent(of: directory)
            let candidate = directory + "/devsim"
            var info = stat()
            if stat(candidate, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
            if directory == "/" { break }
        }
        throw TestSupportError(
            "no devsim executable next to \(testBinary); build it first (swift build) or set DEVSIM_BINARY")
    }

    private static func currentExecutablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    private static func inheritedEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let pair = String(cString: pointer)
            if let equals = pair.firstIndex(of: "=") {
                result[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            }
            entry += 1
        }
        return result
    }
}
