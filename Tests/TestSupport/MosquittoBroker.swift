import Foundation
import Glibc

/// A real `/usr/sbin/mosquitto` on a free 127.0.0.1 port, for integration tests.
///
/// ```swift
/// let broker = try MosquittoBroker()                       // anonymous
/// let secured = try MosquittoBroker(users: ["dev": "pw"], allowAnonymous: false)
/// broker.kill(); try broker.restart()                      // same port, to test reconnection
/// ```
/// The broker runs from a temporary directory (config, password file, log) that is removed when
/// the object goes away; `deinit` stops the broker, so a failing test leaves nothing behind.
/// mosquitto sets `SO_REUSEADDR`: a restart on the same port is not blocked by the connections
/// of the run before in `TIME_WAIT`.
public final class MosquittoBroker: BrokerFixture, Sendable {
    /// The loopback port the broker listens on; stays the same across ``restart()``.
    public var port: UInt16 { process.port }
    /// The temporary directory holding `mosquitto.conf`, `passwords` and `mosquitto.log`.
    public let directory: String
    /// The broker's stderr (`log_dest stderr`), appended to across restarts.
    public var logPath: String { process.logPath }

    public let process: BrokerProcess

    /// Starts a broker and returns once it accepts TCP connections on every listener it has,
    /// its own port's and those of `extraConfig`'s `listener` lines.
    /// - Parameters:
    ///   - users: username → password, hashed with `mosquitto_passwd -U`.
    ///   - allowAnonymous: whether clients without a username may connect.
    ///   - acl: the text of an ACL file (`pattern write things/%u/#`), or nil for none.
    ///   - extraConfig: more `mosquitto.conf` lines (e.g. `max_inflight_messages 1`).
    ///   - startTimeout: how long to wait for the port to open before giving up.
    ///   - persistent: whether the broker saves its state (sessions, queued messages) every
    ///     second and loads it when it starts again, as a broker restarted after a crash does.
    ///   - namespace: a network namespace to start the broker in, instead of the test's own.
    public init(
        users: [String: String] = [:],
        allowAnonymous: Bool = true,
        persistent: Bool = false,
        acl: String? = nil,
        extraConfig: [String] = [],
        startTimeout: Double = 5,
        namespace: NetworkNamespace? = nil
    ) throws(TestSupportError) {
        let directory = try BrokerProcess.makeTemporaryDirectory(prefix: "devsim-mosquitto")
        self.directory = directory
        let configPath = directory + "/mosquitto.conf"

        // Everything below may fail; the directory must not outlive a failed init.
        do throws(TestSupportError) {
            let passwordPath = directory + "/passwords"
            if !users.isEmpty {
                // One `mosquitto_passwd -U` hashes a whole plain file: 1,000 users in 0.2 s,
                // where a `-b` a user takes seconds.
                let plain = users.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)\n" }.joined()
                try BrokerProcess.write(plain, to: passwordPath)
                let result = try DevsimProcess.runToCompletion(executable: "mosquitto_passwd", args: ["-U", passwordPath], timeout: 30)
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
            if let acl {
                try BrokerProcess.write(acl, to: directory + "/acl")
                lines.append("acl_file \(directory)/acl")
            }
            lines += extraConfig

            let command =
                namespace?.command("/usr/sbin/mosquitto", ["-c", configPath])
                ?? (executable: "/usr/sbin/mosquitto", arguments: ["-c", configPath])
            // mosquitto opens its listeners in the order of the configuration and says "running"
            // once every one listens: the first port accepting says nothing of a second
            // `listener` line's (a test's subscriber refused there under load). The log serves
            // in another network namespace too, whose ports cannot be tried from here.
            let program = BrokerProcess.Program(
                name: "mosquitto", executable: command.executable, arguments: command.arguments
            ) { _, logOfThisRun in
                logOfThisRun.contains(" running") ? .ready : .starting
            }
            process = try BrokerProcess(program: program, logPath: directory + "/mosquitto.log", startTimeout: startTimeout) {
                port throws(TestSupportError) in
                let config = (["listener \(port) 127.0.0.1"] + lines).joined(separator: "\n") + "\n"
                try BrokerProcess.write(config, to: configPath)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    deinit {
        stop(grace: 2)
        try? FileManager.default.removeItem(atPath: directory)
    }
}
