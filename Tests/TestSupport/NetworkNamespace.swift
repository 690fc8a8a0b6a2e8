import Glibc

/// A throwaway network namespace (`unshare --net`) with its own loopback and firewall, for
/// tests that black-hole or throttle the traffic between devsim and a broker both started in it:
///
/// ```swift
/// let namespace = try NetworkNamespace()
/// let broker = try MosquittoBroker(namespace: namespace)
/// try namespace.run("iptables", "-A", "INPUT", "-p", "tcp", "--dport", "\(broker.port)", "-j", "DROP")
/// ```
/// It lives as long as the object: a `sleep` holds it open, and `deinit` ends the sleep. Making
/// one needs root (or CAP_SYS_ADMIN and CAP_NET_ADMIN); without, `init` throws the reason, so a
/// test that needs one fails rather than passes unseen.
public final class NetworkNamespace: Sendable {
    /// `/proc/PID/ns/net` of the process holding the namespace open.
    public let path: String
    private let holder: ChildProcess

    public init() throws(TestSupportError) {
        // An hour, not forever: should the test runner be killed before `deinit`, the holder and
        // its namespace still go.
        holder = try ChildProcess(executable: "unshare", arguments: ["--net", "--", "sleep", "3600"])
        path = "/proc/\(holder.pid)/ns/net"
        let ours = Self.link("/proc/self/ns/net")
        // The holder is in the new namespace once unshare has run sleep there.
        let entered = TestClock.wait(timeout: 5, interval: 0.005) {
            !holder.isRunning || (Self.link(path).map { $0 != ours } ?? false)
        }
        guard entered, holder.isRunning else {
            holder.terminate(grace: 0)
            throw TestSupportError("cannot make a network namespace with `unshare --net` (it needs root): \(holder.stderrText)")
        }
        try run("ip", "link", "set", "lo", "up")
    }

    deinit {
        holder.terminate(grace: 0)
    }

    /// `executable` with `arguments`, as a command that runs inside the namespace.
    public func command(_ executable: String, _ arguments: [String]) -> (executable: String, arguments: [String]) {
        ("nsenter", ["--net=\(path)", "--", executable] + arguments)
    }

    /// Runs a command inside the namespace to completion (`iptables`, `tc`, `ip`); throws with
    /// its output if it fails.
    public func run(_ executable: String, _ arguments: String...) throws(TestSupportError) {
        let (program, args) = command(executable, arguments)
        let result = try DevsimProcess.runToCompletion(executable: program, args: args, timeout: 20)
        guard result.status == 0 else {
            let line = ([executable] + arguments).joined(separator: " ")
            throw TestSupportError(
                "`\(line)` in the test's network namespace failed (\(result.status.map(String.init) ?? "timeout")): \(result.stderr)\(result.stdout)"
            )
        }
    }

    private static func link(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
