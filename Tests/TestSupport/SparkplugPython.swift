import Foundation
import Glibc

/// The independent Sparkplug B implementation: Google's protobuf for Python with the schema in
/// `scripts/sparkplug/sparkplug_b.proto`, from the virtual environment
/// `scripts/install-sparkplug.sh` makes (`.venv-sparkplug/`), driven through
/// `scripts/sparkplug/payload.py`. Tests hold devsim's own encoder and decoder against it, and
/// what an edge node says against `scripts/sparkplug/host.py`, a host's view: offline from a
/// list of messages, or live on a broker.
public enum SparkplugPython {
    /// A payload as protobuf read it: numbers as the wire has them, in decimal.
    public struct Payload: Decodable, Sendable {
        public let timestamp: String?
        public let seq: String?
        public let uuid: String?
        public let metrics: [Metric]
    }

    public struct Metric: Decodable, Sendable, Equatable {
        public let name: String?
        public let alias: String?
        public let timestamp: String?
        public let datatype: String?
        public let isNull: String?
        /// The member of the `value` oneof that is set (`int_value`, `double_value`…).
        public let valueField: String?
        public let value: String?
    }

    /// `bytes` decoded by protobuf.
    public static func decode(_ bytes: [UInt8]) throws(TestSupportError) -> Payload {
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let output = try run(["decode", hex])
        do {
            return try JSONDecoder().decode(Payload.self, from: Data(output.utf8))
        } catch {
            throw TestSupportError("payload.py decode printed what is not a payload: \(output)")
        }
    }

    /// The bytes protobuf makes of `json`, a payload in protobuf's JSON mapping with the schema's
    /// field names.
    public static func encode(_ json: String) throws(TestSupportError) -> [UInt8] {
        let hex = try run(["encode", json]).trimmingCharacters(in: .whitespacesAndNewlines)
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) ?? hex.endIndex
            guard let byte = UInt8(hex[index..<next], radix: 16) else {
                throw TestSupportError("payload.py encode printed what is not hex: \(hex)")
            }
            bytes.append(byte)
            index = next
        }
        return bytes
    }

    /// What a Sparkplug host (`scripts/sparkplug/host.py`) makes of a stream of messages.
    public struct HostReport: Decodable, Sendable {
        public let errors: [String]
        /// Messages by type: `NBIRTH`, `DDATA`…
        public let counts: [String: Int]
        /// Births by node (`group/node`) and device (`group/node/device`).
        public let births: [String: Int]
        /// By node: what came of an NCMD rebirth the host saw.
        public let rebirths: [String: Rebirth]
        /// By node: the bdSeq of each NBIRTH, in order (nil for one without).
        public let bdSeq: [String: [Int?]]
        /// By node: the bdSeq of each NDEATH, in order.
        public let deaths: [String: [Int?]]
    }

    /// A node's answer to an NCMD `Node Control/Rebirth`.
    public struct Rebirth: Decodable, Sendable, Equatable {
        public let asked: Bool
        /// An NBIRTH with seq 0 came after it.
        public let reborn: Bool
        /// Of the devices the node had when asked, those a DBIRTH came for after that NBIRTH.
        public let devicesReborn: Int

        public init(asked: Bool, reborn: Bool, devicesReborn: Int) {
            self.asked = asked
            self.reborn = reborn
            self.devicesReborn = devicesReborn
        }
    }

    /// The host's check of `messages` (topic and payload), in the order given.
    public static func checkAsHost(_ messages: [(topic: String, payload: [UInt8])]) throws(TestSupportError) -> HostReport {
        let lines = messages.map { "\($0.topic) " + $0.payload.map { String(format: "%02x", $0) }.joined() }.joined(separator: "\n")
        let path: String
        do {
            path = try RunFiles.scenario("messages.txt", lines)
        } catch {
            throw TestSupportError("cannot write the messages for host.py: \(error)")
        }
        defer { RunFiles.removeFolder(of: path) }
        let output = try run(["check", path], script: "host.py")
        do {
            return try JSONDecoder().decode(HostReport.self, from: Data(output.utf8))
        } catch {
            throw TestSupportError("host.py printed what is not a report: \(output)")
        }
    }

    /// A SCADA host (`host.py live`) on the broker at 127.0.0.1:`port`: it has subscribed to
    /// `spBv1.0/#` before `body` runs (which starts what publishes, so nothing is missed), checks
    /// what comes for `seconds` from then, and its report is returned once it has exited. The
    /// options are host.py's: a rebirth asked of each node `rebirthAfter` seconds after its first
    /// NBIRTH, one `group` only, every message written to `capture`, a primary host's STATE.
    public static func liveHost(
        port: UInt16, seconds: Double, rebirthAfter: Double? = nil, group: String? = nil, capture: String? = nil,
        primaryHost: String? = nil, while body: () throws -> Void
    ) throws -> HostReport {
        let (python, directory) = try locate()
        var arguments = [directory + "/host.py", "live", "--host", "127.0.0.1", "--port", String(port), "--seconds", String(seconds)]
        for (option, value) in [
            ("--rebirth-after", rebirthAfter.map { String($0) }), ("--group", group), ("--capture", capture),
            ("--primary-host", primaryHost),
        ] {
            if let value { arguments += [option, value] }
        }
        let child = try ChildProcess(executable: python, arguments: arguments)
        // host.py says "subscribed" on stderr once its SUBACK is in.
        guard TestClock.wait(timeout: 15, until: { child.stderrText.contains("subscribed") || !child.isRunning }),
            child.stderrText.contains("subscribed")
        else {
            _ = child.terminate()
            throw TestSupportError("host.py live did not subscribe to 127.0.0.1:\(port): \(child.stderrText)")
        }
        do {
            try body()
        } catch {
            _ = child.terminate()
            throw error
        }
        guard let status = child.waitUntilExit(timeout: seconds + 30) else {
            _ = child.terminate()
            throw TestSupportError("host.py live did not finish in \(seconds) s and 30 more")
        }
        child.finishReaders(timeout: 5)
        guard status == 0 else {
            throw TestSupportError("host.py live exited \(status): \(child.stderrText)")
        }
        do {
            return try JSONDecoder().decode(HostReport.self, from: Data(child.stdoutText.utf8))
        } catch {
            throw TestSupportError("host.py live printed what is not a report: \(child.stdoutText)")
        }
    }

    private static func run(_ arguments: [String], script name: String = "payload.py") throws(TestSupportError) -> String {
        let (python, directory) = try locate()
        let script = directory + "/" + name
        let child = try ChildProcess(executable: python, arguments: [script] + arguments)
        guard let status = child.waitUntilExit(timeout: 60) else {
            _ = child.terminate()
            throw TestSupportError("\(name) \(arguments[0]) did not finish in 60 s")
        }
        child.finishReaders(timeout: 5)
        guard status == 0 else {
            throw TestSupportError("\(name) \(arguments[0]) exited \(status): \(child.stderrText)")
        }
        return child.stdoutText
    }

    /// The venv's python (`$DEVSIM_SPARKPLUG_PYTHON` overrides it) and the scripts' folder.
    private static func locate(sourceFile: String = #filePath) throws(TestSupportError) -> (python: String, scripts: String) {
        // Tests/TestSupport/SparkplugPython.swift → the repository.
        let repository = URL(fileURLWithPath: sourceFile).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let script = repository + "/scripts/sparkplug"
        if let override = getenv("DEVSIM_SPARKPLUG_PYTHON").map({ String(cString: $0) }), !override.isEmpty {
            guard access(override, X_OK) == 0 else {
                throw TestSupportError("DEVSIM_SPARKPLUG_PYTHON=\(override) is not an executable file")
            }
            return (override, script)
        }
        let python = repository + "/.venv-sparkplug/bin/python"
        guard access(python, X_OK) == 0 else {
            throw TestSupportError(
                "protobuf for Python is not installed at \(python): run scripts/install-sparkplug.sh")
        }
        return (python, script)
    }
}
