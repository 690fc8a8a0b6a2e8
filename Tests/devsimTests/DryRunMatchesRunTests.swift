import Foundation
import Testing
import TestSupport

/// Issue 39, item 3: the dry run is the run. For every shipped scenario, what a subscriber on
/// `#` receives from a live run against mosquitto is what the dry run shows: every topic the run
/// publishes on is in the dry run, every message the dry run says at the CONNACK (availability,
/// discovery configs, states, a Sparkplug node's births) arrives, and every JSON payload that
/// arrives has the shape (its keys, nested ones too) of one the dry run shows on its topic.
@Suite(.tags(.integration), .notUnitOnly) struct DryRunMatchesRunTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let scenarios: [String] = {
        let folder = repository.appendingPathComponent("scenarios")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.sorted()
    }()

    /// Seconds of the live run: every shipped scenario's connections are up within the first.
    static let seconds = 4

    @Test(arguments: scenarios)
    func aSubscriberReceivesWhatTheDryRunShows(scenario name: String) throws {
        let file = Self.repository.appendingPathComponent("scenarios").appendingPathComponent(name).path
        // The transport is not what is compared: every scenario runs over plain TCP here (a
        // TLS, WebSocket or cloud broker's settings give way to --url), its secrets made up.
        var env = ["AWS_IOT_CERTS": "/nonexistent"]
        if name == "cloud-broker.yaml" { env["DEVSIM_PASSWORD"] = "made-up" }
        let dry = try DevsimProcess.runToCompletion(
            args: ["run", file, "--dry-run", "--seed", "7", "--duration", "\(Self.seconds * 5)s"], env: env, timeout: 60)
        #expect(dry.status == 0, "\(name): \(dry.stderr)")
        var shown: [String: Set<Shape>] = [:]
        var saidAtConnect: [(topic: String, shape: Shape)] = []
        for line in dry.stdout.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            let topic = try #require(object["topic"] as? String)
            let shape = Shape(try #require(object["payload"] as? String), topic: topic)
            shown[topic, default: []].insert(shape)
            if object["at"] as? String == "+00:00:00.000", object["will"] == nil { saidAtConnect.append((topic, shape)) }
        }

        let broker = try MosquittoBroker()
        let subscriber = try Subscriber(broker: broker, topic: "#", qos: 1)
        let run = try DevsimProcess.runToCompletion(
            args: [
                "run", file, "--url", "mqtt://127.0.0.1:\(broker.port)", "--seed", "7", "--duration", "\(Self.seconds)s",
                "--stats-interval", "0",
            ], env: env, timeout: 60)
        #expect(run.status == 0, "\(name): \(run.stderr)")
        // What the run said at its end has arrived once a message published after it has.
        let last = "devsim-test/end/\(UUID().uuidString)"
        _ = try MosquittoPub.run(port: broker.port, ["-t", last, "-m", "end"], timeout: 10)
        #expect(TestClock.wait(timeout: 10, interval: 0.05) { subscriber.messages.contains { $0.topic == last } })
        var received: [String: Set<Shape>] = [:]
        for message in subscriber.messages where message.topic != last {
            received[message.topic, default: []].insert(Shape(message.payload, topic: message.topic))
        }
        #expect(!received.isEmpty, "\(name): nothing arrived")

        for (topic, shapes) in received.sorted(by: { $0.key < $1.key }) {
            guard let dryShapes = shown[topic] else {
                Issue.record("\(name): the run published on '\(topic)', which the dry run does not show")
                continue
            }
            for shape in shapes where !dryShapes.contains(shape) {
                Issue.record("\(name): '\(topic)' got \(shape), which the dry run never shows: \(dryShapes)")
            }
        }
        for (topic, shape) in saidAtConnect where !(received[topic]?.contains(shape) ?? false) {
            Issue.record("\(name): the dry run says \(shape) on '\(topic)' at the CONNACK, which never arrived")
        }
    }

    /// What a payload is made of: a JSON object's keys, nested ones too, with each value's kind;
    /// or that it is other text, empty, or bytes (a Sparkplug payload, which the dry run shows
    /// decoded, is `binary` on both sides).
    enum Shape: Hashable, CustomStringConvertible {
        case json(Set<String>)
        case text
        case empty
        case binary

        init(_ payload: [UInt8], topic: String) {
            if topic.hasPrefix("spBv1.0/") && !topic.hasPrefix("spBv1.0/STATE/") {
                self = .binary
            } else if payload.isEmpty {
                self = .empty
            } else if let text = String(validating: payload, as: UTF8.self) {
                self.init(text, topic: topic)
            } else {
                self = .binary
            }
        }

        init(_ text: String, topic: String) {
            if topic.hasPrefix("spBv1.0/") && !topic.hasPrefix("spBv1.0/STATE/") {
                self = .binary
            } else if text.isEmpty {
                self = .empty
            } else if let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] {
                self = .json(Self.paths(object, ""))
            } else {
                self = .text
            }
        }

        private static func paths(_ object: [String: Any], _ prefix: String) -> Set<String> {
            var paths: Set<String> = []
            for (key, value) in object {
                if let nested = value as? [String: Any] {
                    paths.formUnion(Self.paths(nested, prefix + key + "."))
                } else {
                    paths.insert(prefix + key + ":" + (value is String ? "text" : value is NSNull ? "null" : "value"))
                }
            }
            return paths
        }

        var description: String {
            switch self {
            case .json(let paths): "{" + paths.sorted().joined(separator: ", ") + "}"
            case .text: "text"
            case .empty: "an empty payload"
            case .binary: "bytes"
            }
        }
    }
}
