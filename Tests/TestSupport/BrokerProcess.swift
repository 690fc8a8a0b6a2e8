import Foundation
import Glibc
import Reactor

/// A broker program run as a child process on a 127.0.0.1 port that it keeps across restarts:
/// what ``MosquittoBroker`` and ``AmqttBroker`` share, so that each of them only says how its
/// broker is configured and how it tells that it is ready.
///
/// Every run appends its stdout and stderr to one log. A launch is judged by what that run added
/// to it (and by the process): ready, the port taken (choose another, or wait for it), or failed,
/// with the run's log in the error.
public final class BrokerProcess: Sendable {
    /// What a launch has come to so far, as the broker's own signs tell.
    enum Readiness: Sendable {
        case starting
        case ready
        /// The broker said that it failed but may still be running (amqtt stays up after a
        /// failed start, listening nowhere).
        case failed
    }

    /// How to run one broker program.
    struct Program: Sendable {
        /// The broker's name, for error messages.
        let name: String
        /// The command that starts it (wrapped for a network namespace, if it runs in one).
        let executable: String
        let arguments: [String]
        /// Where this launch stands, from the port and what the run has logged so far. Only the
        /// broker knows its signs: a port that accepts, a log line saying that it listens.
        let readiness: @Sendable (_ port: UInt16, _ logOfThisRun: String) -> Readiness
    }

    /// The loopback port the broker listens on; stays the same across ``restart()``.
    let port: UInt16
    /// The broker's stdout and stderr, appended to across restarts.
    let logPath: String

    private let program: Program
    private let startTimeout: Double
    /// The running broker, if any; swapped by stop/kill/restart from any thread.
    private let process = Locked<ChildProcess?>(nil)

    /// Starts the broker on a free port and returns once it is ready.
    ///
    /// The free port can be taken between choosing and binding it: then another is chosen, up
    /// to five times.
    /// - Parameter configure: writes the broker's configuration for a port, before each try.
    init(
        program: Program, logPath: String, startTimeout: Double,
        configure: (_ port: UInt16) throws(TestSupportError) -> Void
    ) throws(TestSupportError) {
        self.program = program
        self.logPath = logPath
        self.startTimeout = startTimeout
        var lastError = TestSupportError("no attempt made")
        for _ in 0..<5 {
            let candidate = try Loopback.freePort()
            try configure(candidate)
            switch Self.launch(program, port: candidate, logPath: logPath, timeout: startTimeout) {
            case .started(let child):
                process.withLock { $0 = child }
                port = candidate
                return
            case .addressInUse:
                lastError = TestSupportError("port \(candidate) was taken")
            case .failed(let error):
                throw error
            }
        }
        throw lastError
    }

    /// Makes a new directory under /tmp named `prefix` and six random characters, for a
    /// broker's configuration, passwords and log.
    static func makeTemporaryDirectory(prefix: String) throws(TestSupportError) -> String {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else {
            throw TestSupportError("mkdtemp failed: \(Loopback.errnoText())")
        }
        return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Writes `text` to `path`, a file of the broker's (its configuration, passwords, ACL).
    static func write(_ text: String, to path: String) throws(TestSupportError) {
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw TestSupportError("cannot write \(path): \(error)")
        }
    }

    /// The broker's log so far (all runs).
    var log: String { Self.readLog(logPath) }

    /// Whether the broker process is running.
    var isRunning: Bool {
        process.withLock { $0?.isRunning ?? false }
    }

    /// The broker's process id, while running.
    var pid: pid_t? {
        process.withLock { $0?.isRunning == true ? $0?.pid : nil }
    }

    /// `SIGTERM`, then `SIGKILL` if it still runs after `grace` seconds; nothing if not running.
    func stop(grace: Double) {
        let child = process.withLock { current in
            defer { current = nil }
            return current
        }
        child?.terminate(grace: grace)
    }

    /// Sends `signal` to the broker, if it runs.
    func signal(_ signal: Int32) {
        process.withLock { $0 }?.sendSignal(signal)
    }

    /// `SIGKILL` at once, as a crash would, and waits for the process to be gone.
    func kill() {
        let child = process.withLock { current in
            defer { current = nil }
            return current
        }
        child?.sendSignal(SIGKILL)
        child?.waitUntilExit(timeout: 5)
    }

    /// Starts the broker again on the same port (stopping it first if it runs), with the
    /// configuration it had. A port still held by the old process is tried again a few times.
    func restart() throws(TestSupportError) {
        stop(grace: 2)
        appendToLog("--- restart on port \(port) ---\n")
        for _ in 1...10 {
            switch Self.launch(program, port: port, logPath: logPath, timeout: startTimeout) {
            case .started(let child):
                process.withLock { $0 = child }
                return
            case .addressInUse:
                TestClock.sleep(0.2)
            case .failed(let error):
                throw error
            }
        }
        throw TestSupportError("\(program.name) could not bind port \(port) again after 10 attempts; log:\n\(log)")
    }

    private enum LaunchResult {
        case started(ChildProcess)
        case addressInUse
        case failed(TestSupportError)
    }

    /// Spawns the broker and waits until it is ready, says that it failed, or dies.
    private static func launch(_ program: Program, port: UInt16, logPath: String, timeout: Double) -> LaunchResult {
        let logLengthBefore = readLog(logPath).utf8.count
        let logOfThisRun = { String(decoding: readLog(logPath).utf8.dropFirst(logLengthBefore), as: UTF8.self) }
        let child: ChildProcess
        do {
            child = try ChildProcess(
                executable: program.executable, arguments: program.arguments,
                stdout: .file(logPath), stderr: .file(logPath))
        } catch {
            return .failed(error)
        }
        var readiness = Readiness.starting
        let ended = TestClock.wait(timeout: timeout, interval: 0.01) {
            guard child.isRunning else { return true }
            let thisRun = logOfThisRun()
            if saysAddressInUse(thisRun) { return true }
            readiness = program.readiness(port, thisRun)
            return readiness != .starting
        }
        if readiness == .ready && child.isRunning { return .started(child) }

        let exitStatus = child.exitStatus
        child.terminate(grace: 0.5)
        let thisRun = logOfThisRun()
        if saysAddressInUse(thisRun) { return .addressInUse }
        let reason =
            switch (ended, exitStatus) {
            case (false, _): "\(program.name) was not ready on 127.0.0.1:\(port) within \(timeout) s"
            case (true, nil): "\(program.name) failed to start"
            case (true, let status?): "\(program.name) exited with status \(status)"
            }
        return .failed(TestSupportError("\(reason); log:\n\(thisRun)"))
    }

    private static func readLog(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    /// Whether a run's log says its port was taken: strerror's "Address already in use" from
    /// mosquitto, Python's "address already in use" from amqtt.
    private static func saysAddressInUse(_ log: String) -> Bool {
        log.range(of: "address already in use", options: .caseInsensitive) != nil
    }

    private func appendToLog(_ text: String) {
        guard let handle = FileHandle(forWritingAtPath: logPath) else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data(text.utf8))
    }
}

/// What every broker a test starts offers, through the `BrokerProcess` that runs it; each
/// fixture adds its own `stop(grace:)` and `restart()`, whose behaviour differs by broker.
public protocol BrokerFixture: AnyObject {
    var process: BrokerProcess { get }
}

extension BrokerFixture {
    /// The broker's log so far (all runs), for diagnosing a failing test.
    public var log: String { process.log }

    /// Whether the broker process is running.
    public var isRunning: Bool { process.isRunning }

    /// The broker's process id, while running.
    public var pid: pid_t? { process.pid }

    /// Stops the broker: `SIGTERM`, then `SIGKILL` if it is still running after `grace` seconds.
    /// Does nothing if it is not running.
    public func stop(grace: Double = 5) { process.stop(grace: grace) }

    /// Starts the broker again on the same port (stopping it first if it runs), with the
    /// configuration it had. A port still held by the old process is tried again a few times.
    public func restart() throws(TestSupportError) { try process.restart() }

    /// Kills the broker with `SIGKILL` at once, as a crash would, and waits for it to be gone.
    public func kill() { process.kill() }

    /// Freezes the broker (`SIGSTOP`): its sockets stay open and the kernel still takes bytes and
    /// connections for it, but nothing is answered until `resume()`.
    public func pause() { process.signal(SIGSTOP) }

    /// Lets a paused broker run again (`SIGCONT`).
    public func resume() { process.signal(SIGCONT) }
}
