import Foundation
import Glibc
import Synchronization

/// A real `/usr/sbin/mosquitto` on a free 127.0.0.1 port, for integration tests.
///
/// ```swift
/// let broker = try MosquittoBroker()                       // anonymous
/// let secured = try MosquittoBroker(users: ["dev": "pw"], allowAnonymous: false)
/// broker.kill(); try broker.restart()                      // same port, to test reconnection
/// ```
/// The broker runs from a temporary directory (config, password file, log) that is removed when
/// the object goes away; `deinit` stops the broker, so a failing test leaves nothing behind.
public final class MosquittoBroker: Sendable {
    /// The loopback port the broker listens on; stays the same across ``restart()``.
    public let port: UInt16
    /// The temporary directory holding `mosquitto.conf`, `passwords` and `mosquitto.log`.
    public let directory: String
    /// The broker's stderr (`log_dest stderr`), appended to across restarts.
    public let logPath: String

    private let configPath: String
    private let startTimeout: Double
    private let namespace: NetworkNamespace?
    /// The running broker, if any; swapped by stop/kill/restart from any thread.
    private let process = Mutex<ChildProcess?>(nil)

    /// Starts a broker and returns once it accepts TCP connections.
    /// - Parameters:
    ///   - users: username → password, written with `mosquitto_passwd -b`.
    ///   - allowAnonymous: whether clients without a username may connect.
    ///   - extraConfig: more `mosquitto.conf` lines (e.g. `max_inflight_messages 1`).
    ///   - startTimeout: how long to wait for the port to open before giving up.
    ///   - persistent: whether the broker saves its state (sessions, queued messages) every
    ///     second and loads it when it starts again, as a broker restarted after a crash does.
    ///   - namespace: a network namespace to start the broker in, instead of the test's own.
    public init(
        users: [String: String] = [:],
        allowAnonymous: Bool = true,
        persistent: Bool = false,
        extraConfig: [String] = [],
        startTimeout: Double = 5,
        namespace: NetworkNamespace? = nil
    ) throws(TestSupportError) {
        var template = Array("/tmp/devsim-mosquitto-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else {
            throw TestSupportError("mkdtemp failed: \(Loopback.errnoText())")
        }
        let directory = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        self.directory = directory
        self.logPath = directory + "/mosquitto.log"
        self.configPath = directory + "/mosquitto.conf"
        self.startTimeout = startTimeout
        self.namespace = namespace

        // Everything below may fail; the directory must not outlive a failed init.
        do throws(TestSupportError) {
            let passwordPath = directory + "/passwords"
            for (index, user) in users.sorted(by: { $0.key < $1.key }).enumerated() {
                let create = index == 0 ? ["-c"] : []
                let result = try DevsimProcess.runToCompletion(
                    executable: "mosquitto_passwd", args: create + ["-b", passwordPath, user.key, user.value], timeout: 10)
                guard result.status == 0 else {
                    throw TestSupportError("mosquitto_passwd failed (\(result.status.map(String.init) ?? "timeout")): \(result.stderr)")
                }
            }
            var lines = [
                "allow_anonymous \(allowAnonymous)",
                "persistence \(persistent)",
                "log_dest stderr",
                "log_type error",
                "log_type warning",
                "log_type notice",
                "log_type information",
                "connection_messages true",
            ]
            // As root, mosquitto would switch to user "mosquitto", which cannot read our 0700 dir.
            if geteuid() == 0 { lines.append("user root") }
            if persistent { lines += ["persistence_location \(directory)/", "autosave_interval 1"] }
            if !users.isEmpty { lines.append("password_file \(passwordPath)") }
            lines += extraConfig

            // The free port can be taken between choosing and binding it; choose again then.
            var chosen: UInt16?
            var lastError = TestSupportError("no attempt made")
            for _ in 0..<5 {
                let candidate = try Loopback.freePort()
                let config = (["listener \(candidate) 127.0.0.1"] + lines).joined(separator: "\n") + "\n"
                do {
                    try config.write(toFile: configPath, atomically: true, encoding: .utf8)
                } catch {
                    throw TestSupportError("cannot write \(configPath): \(error)")
                }
                switch Self.launch(configPath: configPath, logPath: logPath, port: candidate, timeout: startTimeout, namespace: namespace) {
                case .started(let child):
                    process.withLock { $0 = child }
                    chosen = candidate
                case .addressInUse:
                    lastError = TestSupportError("port \(candidate) was taken")
                    continue
                case .failed(let error):
                    throw error
                }
                break
            }
            guard let chosen else { throw lastError }
            port = chosen
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    deinit {
        stop(grace: 2)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The broker's log so far (all runs), for diagnosing a failing test.
    public var log: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    /// Whether the broker process is running.
    public var isRunning: Bool {
        process.withLock { $0?.isRunning ?? false }
    }

    /// The broker's process id, while running.
    public var pid: pid_t? {
        process.withLock { $0?.isRunning == true ? $0?.pid : nil }
    }

    /// Stops the broker cleanly: `SIGTERM`, then `SIGKILL` if it is still running after `grace`
    /// seconds. Does nothing if it is not running.
    public func stop(grace: Double = 5) {
        let child = process.withLock { current in
            defer { current = nil }
            return current
        }
        child?.terminate(grace: grace)
    }

    /// Kills the broker with `SIGKILL` at once, as a crash would, and waits for it to be gone.
    public func kill() {
        let child = process.withLock { current in
            defer { current = nil }
            return current
        }
        child?.sendSignal(SIGKILL)
        child?.waitUntilExit(timeout: 5)
    }

    /// Starts the broker again on the same port (stopping it first if it runs).
    ///
    /// mosquitto sets `SO_REUSEADDR`, so connections of the previous run in `TIME_WAIT` do not
    /// block the port; a bind failure is still retried a few times in case the old process is
    /// slow to release it.
    public func restart() throws(TestSupportError) {
        stop(grace: 2)
        appendToLog("--- restart on port \(port) ---\n")
        for _ in 1...10 {
            switch Self.launch(configPath: configPath, logPath: logPath, port: port, timeout: startTimeout, namespace: namespace) {
            case .started(let child):
                process.withLock { $0 = child }
                return
            case .addressInUse:
                TestClock.sleep(0.2)
            case .failed(let error):
                throw error
            }
        }
        throw TestSupportError("mosquitto could not bind port \(port) again after 10 attempts; log:\n\(log)")
    }

    private enum LaunchResult {
        case started(ChildProcess)
        case addressInUse
        case failed(TestSupportError)
    }

    /// Spawns mosquitto and waits until `port` accepts connections or the process dies. In
    /// another network namespace the port cannot be tried from here: the log says when it is open.
    private static func launch(configPath: String, logPath: String, port: UInt16, timeout: Double,
                               namespace: NetworkNamespace?) -> LaunchResult {
        let readLog = { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
        let logLengthBefore = readLog().utf8.count
        let command = namespace?.command("/usr/sbin/mosquitto", ["-c", configPath])
            ?? (executable: "/usr/sbin/mosquitto", arguments: ["-c", configPath])
        let child: ChildProcess
        do {
            child = try ChildProcess(executable: command.executable, arguments: command.arguments,
                                     stdout: .file(logPath), stderr: .file(logPath))
        } catch {
            return .failed(error)
        }
        let ready = TestClock.wait(timeout: timeout, interval: 0.01) {
            guard child.isRunning else { return true }
            if namespace == nil { return Loopback.acceptsConnections(port: port) }
            return String(decoding: readLog().utf8.dropFirst(logLengthBefore), as: UTF8.self).contains(" running")
        }
        if ready && child.isRunning { return .started(child) }

        child.terminate(grace: 0.5)
        let thisRun = String(decoding: readLog().utf8.dropFirst(logLengthBefore), as: UTF8.self)
        if thisRun.contains("Address already in use") { return .addressInUse }
        let reason = ready
            ? "mosquitto exited with status \(child.exitStatus.map(String.init) ?? "?")"
            : "mosquitto did not accept connections on 127.0.0.1:\(port) within \(timeout) s"
        return .failed(TestSupportError("\(reason); log:\n\(thisRun)"))
    }

    private func appendToLog(_ text: String) {
        guard let handle = FileHandle(forWritingAtPath: logPath) else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data(text.utf8))
    }
}
