import Foundation
import Glibc
import Reactor

/// A child process started with `posix_spawn`, with its output captured by background threads.
///
/// The fixtures spawn processes themselves rather than through Foundation's `Process` so that
/// every wait is bounded, the child starts with default signal handling (an ignored `SIGTERM` or
/// `SIGPIPE` in the test runner would otherwise be inherited), and no descriptor of the test
/// process (another child's pipe, a listening socket) leaks into the child.
public final class ChildProcess: Sendable {
    /// Where one of the child's output streams goes.
    public enum Output: Sendable {
        /// Read into memory; see ``stdoutText`` / ``stderrText``.
        case capture
        /// Appended to the file at this path (created if missing).
        case file(String)
        /// Sent to `/dev/null`.
        case discard
    }

    /// Called on a background thread with each complete line of standard output (without the
    /// newline) and the monotonic time it was read.
    public typealias LineHandler = @Sendable (_ line: String, _ time: Double) -> Void

    /// The child's process id. Only signalled while the child has not been reaped, so a reused
    /// pid is never hit.
    public let pid: pid_t
    /// The path or name the child was started from.
    public let executable: String

    private struct State {
        var stdout: [UInt8] = []
        var stderr: [UInt8] = []
        /// Set once `waitpid` has reaped the child: exit code, or 128 + signal number.
        var exitStatus: Int32?
        /// Tells reader threads to give up even without end-of-file (a grandchild may hold the
        /// pipe open forever).
        var abandonReaders = false
        var openReaders = 0
        var readers: [WorkerThread] = []
    }

    /// Owns the state on its own so reader threads can hold it without keeping the
    /// `ChildProcess` alive (its deinit must still kill a child the test forgot).
    private final class Shared: Sendable {
        /// Guards all mutable state, including the reap: pid and exit status change together.
        let state = Locked(State())
    }

    private let shared = Shared()

    /// Starts `executable` (a path, or a name looked up in `PATH`) with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: the child's complete environment; `nil` inherits the test process's.
    ///   - onStdoutLine: optional per-line callback, for callers that need arrival times.
    public init(
        executable: String,
        arguments: [String] = [],
        environment: [String: String]? = nil,
        stdout: Output = .capture,
        stderr: Output = .capture,
        onStdoutLine: LineHandler? = nil
    ) throws(TestSupportError) {
        self.executable = executable
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)

        // Parent ends of the capture pipes; the child ends are closed once the child has them.
        var readEnds: [(fd: Int32, isStdout: Bool)] = []
        var childEnds: [Int32] = []
        defer { childEnds.forEach { _ = close($0) } }
        for (target, output) in [(Int32(1), stdout), (Int32(2), stderr)] {
            switch output {
            case .capture:
                var fds: [Int32] = [0, 0]
                guard GNULibC.closeOnExecPipe(&fds) else {
                    readEnds.forEach { _ = close($0.fd) }
                    throw TestSupportError("pipe failed: \(String(cString: strerror(errno)))")
                }
                readEnds.append((fds[0], target == 1))
                childEnds.append(fds[1])
                posix_spawn_file_actions_adddup2(&actions, fds[1], target)
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            case .discard:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            }
        }
        GNULibC.addCloseFrom(&actions, lowest: 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { env in
            env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { envp?.forEach { free($0) } }

        var childPid: pid_t = 0
        let result: Int32
        if let envp {
            result = posix_spawnp(&childPid, executable, &actions, &attributes, argv, envp)
        } else {
            result = posix_spawnp(&childPid, executable, &actions, &attributes, argv, environ)
        }
        guard result == 0 else {
            readEnds.forEach { _ = close($0.fd) }
            throw TestSupportError("cannot start \(executable): \(String(cString: strerror(result)))")
        }
        pid = childPid

        shared.state.withLock { $0.openReaders = readEnds.count }
        for end in readEnds {
            let handler = end.isStdout ? onStdoutLine : nil
            let thread: WorkerThread
            do {
                thread = try WorkerThread { [shared] in
                    Self.readLoop(fd: end.fd, isStdout: end.isStdout, onLine: handler, shared: shared)
                }
            } catch {
                // Without a reader the stream is simply not captured; the child still runs.
                close(end.fd)
                shared.state.withLock { $0.openReaders -= 1 }
                continue
            }
            shared.state.withLock { $0.readers.append(thread) }
        }
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            _ = waitUntilExit(timeout: 2)
        }
        finishReaders(timeout: 0.5)
    }

    /// Everything the child wrote to standard output so far (when captured).
    public var stdoutText: String { shared.state.withLock { String(decoding: $0.stdout, as: UTF8.self) } }
    /// Everything the child wrote to standard error so far (when captured).
    public var stderrText: String { shared.state.withLock { String(decoding: $0.stderr, as: UTF8.self) } }

    /// The exit code (or 128 + signal number) once the child has exited and been reaped.
    public var exitStatus: Int32? {
        reap()
        return shared.state.withLock { $0.exitStatus }
    }

    /// Whether the child is still running.
    public var isRunning: Bool { exitStatus == nil }

    /// CPU seconds (user and system) the running child has used so far, from `/proc/PID/stat`;
    /// `nil` once it has exited. The way to tell an idle wait from a busy loop.
    public var cpuSeconds: Double? {
        guard isRunning, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the command name (which may hold spaces), from field 3 on: utime is 14, stime 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Sends `signal` to the child, unless it has already exited.
    public func sendSignal(_ signal: Int32) {
        reap()
        shared.state.withLock { state in
            if state.exitStatus == nil { kill(pid, signal) }
        }
    }

    /// Waits at most `timeout` seconds for the child to exit.
    /// - Returns: the exit code (128 + signal number if killed by a signal), or `nil` on timeout.
    @discardableResult
    public func waitUntilExit(timeout: Double) -> Int32? {
        var status: Int32?
        _ = TestClock.wait(timeout: timeout) {
            status = exitStatus
            return status != nil
        }
        return status
    }

    /// Sends `SIGTERM`, waits up to `grace` seconds, then `SIGKILL`s; waits for the output too.
    /// - Returns: the exit status (nil only if even `SIGKILL` did not reap it within 5 s).
    @discardableResult
    public func terminate(grace: Double = 3) -> Int32? {
        sendSignal(SIGTERM)
        var status = waitUntilExit(timeout: grace)
        if status == nil {
            sendSignal(SIGKILL)
            status = waitUntilExit(timeout: 5)
        }
        finishReaders(timeout: 1)
        return status
    }

    /// Waits at most `timeout` seconds for the output streams to reach end-of-file, then stops
    /// reading them and joins the reader threads. Call after the child exited to be sure the
    /// captured text is complete.
    public func finishReaders(timeout: Double) {
        _ = TestClock.wait(timeout: timeout) { shared.state.withLock { $0.openReaders == 0 } }
        let readers = shared.state.withLock { state in
            state.abandonReaders = true
            defer { state.readers = [] }
            return state.readers
        }
        readers.forEach { $0.join() }
    }

    /// Collects the child's status if it has exited; never blocks.
    private func reap() {
        shared.state.withLock { state in
            guard state.exitStatus == nil else { return }
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                let signal = status & 0x7f
                state.exitStatus = signal == 0 ? (status >> 8) & 0xff : 128 + signal
            } else if result == -1 && errno == ECHILD {
                // Someone else reaped it (e.g. SIGCHLD ignored); treat it as gone.
                state.exitStatus = -1
            }
        }
    }

    private static func readLoop(fd: Int32, isStdout: Bool, onLine: LineHandler?, shared: Shared) {
        defer {
            close(fd)
            shared.state.withLock { $0.openReaders -= 1 }
        }
        var pendingLine: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if shared.state.withLock({ $0.abandonReaders }) { break }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            // A short poll timeout lets the thread notice `abandonReaders` promptly.
            let ready = poll(&poller, 1, 100)
            if ready == 0 || (ready == -1 && errno == EINTR) { continue }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count == -1 && errno == EINTR { continue }
            guard count > 0 else { break }
            let chunk = buffer[0..<count]
            let time = TestClock.now()
            shared.state.withLock { state in
                if isStdout { state.stdout.append(contentsOf: chunk) } else { state.stderr.append(contentsOf: chunk) }
            }
            guard let onLine else { continue }
            for byte in chunk {
                if byte == UInt8(ascii: "\n") {
                    onLine(String(decoding: pendingLine, as: UTF8.self), time)
                    pendingLine.removeAll(keepingCapacity: true)
                } else {
                    pendingLine.append(byte)
                }
            }
        }
        if let onLine, !pendingLine.isEmpty {
            onLine(String(decoding: pendingLine, as: UTF8.self), TestClock.now())
        }
    }
}
