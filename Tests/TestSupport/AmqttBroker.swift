import Foundation
import Glibc

/// A real amqtt broker (Python, `pip install amqtt==0.12.1`) on a free 127.0.0.1 port: a second
/// broker, written independently of mosquitto, so that what the tests prove of devsim does not
/// rest on one broker's habits.
///
/// ```swift
/// let broker = try AmqttBroker()                           // anonymous
/// let secured = try AmqttBroker(users: ["dev": "pw"], allowAnonymous: false)
/// broker.kill(); try broker.restart()                      // same port, to test reconnection
/// ```
/// amqtt comes from the virtual environment `scripts/install-amqtt.sh` makes in the repository
/// (`.venv-amqtt/`), or from `$DEVSIM_AMQTT`. Like ``MosquittoBroker`` it runs from a temporary
/// directory (config, password file, log) that is removed when the object goes away, and `deinit`
/// stops it.
///
/// What differs from mosquitto: amqtt speaks MQTT 3.1.1 only (an MQTT 5 CONNECT gets no answer, an
/// MQTT 3.1 one is closed without a CONNACK); it refuses a wrong password with CONNACK code 5 (not
/// authorised), not 4; it keeps nothing across a restart (no persistence: it comes back without
/// sessions or retained messages); `SIGTERM` ends it at once (it handles `SIGINT` only); and it
/// takes about half a second to start, as Python imports its modules.
public final class AmqttBroker: BrokerFixture, Sendable {
    /// The loopback port the broker listens on; stays the same across ``restart()``.
    public var port: UInt16 { process.port }
    /// The temporary directory holding `amqtt.yaml`, `passwords` and `amqtt.log`.
    public let directory: String
    /// The `amqtt` executable this broker runs.
    public let executable: String

    public let process: BrokerProcess

    /// Starts a broker and returns once it listens.
    /// - Parameters:
    ///   - users: username → password, written to amqtt's password file as Argon2 hashes.
    ///   - allowAnonymous: whether clients without a username may connect. With `users`, a client
    ///     that gives a name must be one of them, with its password.
    ///   - startTimeout: how long to wait for the broker to listen before giving up.
    ///   - webSocketPort: a loopback port for a WebSocket listener beside the TCP one.
    public init(
        users: [String: String] = [:],
        allowAnonymous: Bool = true,
        startTimeout: Double = 10,
        webSocketPort: UInt16? = nil
    ) throws(TestSupportError) {
        let executable = try Self.locateAmqtt()
        self.executable = executable
        let directory = try BrokerProcess.makeTemporaryDirectory(prefix: "devsim-amqtt")
        self.directory = directory
        let configPath = directory + "/amqtt.yaml"

        // Everything below may fail; the directory must not outlive a failed init.
        do throws(TestSupportError) {
            var plugins = """
                plugins:
                  amqtt.plugins.authentication.AnonymousAuthPlugin:
                    allow_anonymous: \(allowAnonymous)

                """
            if !users.isEmpty {
                let passwordPath = directory + "/passwords"
                try Self.writePasswordFile(passwordPath, users: users, python: Self.python(besides: executable))
                plugins += """
                      amqtt.plugins.authentication.FileAuthPlugin:
                        password_file: "\(passwordPath)"

                    """
            }
            let program = BrokerProcess.Program(name: "amqtt", executable: executable, arguments: ["-c", configPath]) {
                port, logOfThisRun in
                // Logged once the listening socket is open. A failed start (a bad plugin option)
                // is logged, yet the process stays up.
                let webSocketReady = webSocketPort.map { logOfThisRun.contains("bind to 127.0.0.1:\($0) ") } ?? true
                if logOfThisRun.contains("bind to 127.0.0.1:\(port) "), webSocketReady { return .ready }
                return logOfThisRun.contains("Broker startup failed") ? .failed : .starting
            }
            process = try BrokerProcess(program: program, logPath: directory + "/amqtt.log", startTimeout: startTimeout) {
                port throws(TestSupportError) in
                let config = """
                    listeners:
                      default:
                        type: tcp
                        bind: 127.0.0.1:\(port)

                    """ + (webSocketPort.map { "  ws:\n    type: ws\n    bind: 127.0.0.1:\($0)\n\n" } ?? "") + plugins
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

    /// The `amqtt` executable: `$DEVSIM_AMQTT` if set, otherwise `.venv-amqtt/bin/amqtt` in the
    /// repository that holds this source file, where `scripts/install-amqtt.sh` puts it.
    public static func locateAmqtt(sourceFile: String = #filePath) throws(TestSupportError) -> String {
        if let override = getenv("DEVSIM_AMQTT").map({ String(cString: $0) }), !override.isEmpty {
            guard access(override, X_OK) == 0 else {
                throw TestSupportError("DEVSIM_AMQTT=\(override) is not an executable file")
            }
            return override
        }
        // Tests/TestSupport/AmqttBroker.swift → the repository.
        let repository = URL(fileURLWithPath: sourceFile).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let candidate = repository + "/.venv-amqtt/bin/amqtt"
        guard access(candidate, X_OK) == 0 else {
            throw TestSupportError(
                "amqtt is not installed at \(candidate): run scripts/install-amqtt.sh (or set DEVSIM_AMQTT to an amqtt executable)")
        }
        return candidate
    }

    /// The virtual environment's python beside `amqtt`, which has amqtt's own hashing library.
    private static func python(besides amqtt: String) throws(TestSupportError) -> String {
        let candidate = URL(fileURLWithPath: amqtt).deletingLastPathComponent().appendingPathComponent("python").path
        guard access(candidate, X_OK) == 0 else {
            throw TestSupportError("no python beside \(amqtt) to hash the passwords with; use the venv of scripts/install-amqtt.sh")
        }
        return candidate
    }

    /// Writes `user:hash` lines. amqtt 0.12.1 checks passwords with pwdlib: Argon2, or the
    /// deprecated sha512_crypt that Python 3.13 can no longer verify; so Argon2, hashed by
    /// pwdlib itself. With light parameters: amqtt checks the hash of every CONNECT on its one
    /// thread, 0.17 s each with pwdlib's defaults, which would make a fleet's connect slow.
    private static func writePasswordFile(_ path: String, users: [String: String], python: String) throws(TestSupportError) {
        let script = """
            import sys
            from pwdlib.hashers.argon2 import Argon2Hasher
            hasher = Argon2Hasher(time_cost=1, memory_cost=8192, parallelism=1)
            pairs = sys.argv[1:]
            for user, password in zip(pairs[::2], pairs[1::2]):
                print(f"{user}:{hasher.hash(password)}")
            """
        let pairs = users.sorted(by: { $0.key < $1.key }).flatMap { [$0.key, $0.value] }
        let result = try DevsimProcess.runToCompletion(executable: python, args: ["-c", script] + pairs, timeout: 30)
        guard result.status == 0 else {
            throw TestSupportError("hashing the passwords failed (\(result.status.map(String.init) ?? "timeout")): \(result.stderr)")
        }
        try BrokerProcess.write(result.stdout, to: path)
    }
}
