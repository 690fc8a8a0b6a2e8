import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 30, items 2 and 4: a device group whose source is a recording, replayed to a real
/// mosquitto and received by `mosquitto_sub`, which knows nothing of devsim.
@Suite(.tags(.integration), .notUnitOnly) struct ReplayRunTests {
    /// Three sources at 4, 2 and 1 messages a second for 6 s, as `devsim record` writes them.
    static func threeSources() -> (text: String, byTopic: [String: [String]], span: [String: Double]) {
        var lines: [(time: Double, line: String)] = []
        var byTopic: [String: [String]] = [:]
        var span: [String: Double] = [:]
        for (name, rate, start) in [("s1", 4.0, 0.05), ("s2", 2.0, 0.1), ("s3", 1.0, 0.3)] {
            let topic = "rp/\(name)/data"
            let count = Int(6 * rate)
            for step in 0..<count {
                let time = start + Double(step) / rate
                let payload = "{\"id\":\"\(name)\",\"seq\":\(step),\"v\":\(Double(step) * 0.5 + 20)}"
                let escaped = payload.replacingOccurrences(of: "\"", with: "\\\"")
                lines.append((time, "{\"t\":\(time),\"topic\":\"\(topic)\",\"qos\":1,\"payload\":\"\(escaped)\"}"))
                byTopic[topic, default: []].append(payload)
            }
            span[topic] = Double(count - 1) / rate
        }
        let text = "# devsim recording\n" + lines.sorted { $0.time < $1.time }.map(\.line).joined(separator: "\n") + "\n"
        return (text, byTopic, span)
    }

    /// A group a source, as the scenario `devsim record` writes beside a recording.
    static func scenario(speed: String) -> String {
        (1...3).map { "  - name: source-\($0)\n    qos: 1\n    recording: { file: rec.jsonl, topics: rp/s\($0)/data, speed: \(speed) }\n" }
            .joined()
    }

    /// The median of the gaps between one message and the next.
    static func medianGap(_ times: [Double]) -> Double {
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }.sorted()
        return gaps.isEmpty ? 0 : gaps[gaps.count / 2]
    }

    /// Runs `scenario` beside `recording` to completion (no --duration: a replay ends itself),
    /// with `mosquitto_sub` on rp/#; the run, its report, what arrived and how long it took.
    func replay(_ scenario: String, recording: String, extra: [String] = [], expecting: Int) throws -> (
        status: Int32?, stderr: String, report: [String: Any], messages: [Subscriber.Message], seconds: Double, retained: [String]
    ) {
        let broker = try MosquittoBroker()
        let subscriber = try Subscriber(port: broker.port, topic: "rp/#", qos: 1)
        let folder = try RunFiles.folder(with: ["s.yaml": "devices:\n" + scenario, "rec.jsonl": recording])
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("s.yaml").path
        let started = TestClock.now()
        let run = try DevsimRun(file, port: broker.port, extra, report: true, timeout: 60)
        let seconds = TestClock.now() - started
        #expect(subscriber.waitFor(count: expecting, timeout: 10))
        // What the broker keeps: a subscriber that comes after gets the retained messages at once.
        let late = try Subscriber(port: broker.port, topic: "rp/#")
        _ = late.waitFor(count: 1, timeout: 1)
        return (run.status, run.stderr, try RunFiles.report(file + ".json"), subscriber.messages, seconds, late.messages.map(\.payloadText))
    }

    /// The issue's "must hold": the same topics, the same payloads in the same order per topic,
    /// at the recorded pace; the run ends by itself once all is sent and acknowledged.
    @Test func threeSourcesReplayWithTheirTopicsPayloadsOrderAndPace() throws {
        let (recording, byTopic, span) = Self.threeSources()
        let run = try replay(Self.scenario(speed: "1x"), recording: recording, expecting: 42)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("the run ends when its recordings are replayed: 42 messages"), "\(run.stderr)")
        let received = Dictionary(grouping: run.messages, by: \.topic)
        #expect(Set(received.keys) == Set(byTopic.keys), "\(received.keys)")
        for (topic, payloads) in byTopic {
            #expect(received[topic]?.map(\.payloadText) == payloads, "\(topic)")
        }
        // Each message each time: counted once, published and acknowledged.
        #expect(run.report["scheduled"] as? Int == 42 && run.report["published"] as? Int == 42, "\(run.report)")
        #expect(run.report["acknowledged"] as? Int == 42 && RunFiles.accountsForEveryTick(run.report), "\(run.report)")
        // The pace: no message goes before it is due, so the run lasts the recording at least;
        // late messages bunch up, never spread, so half the gaps of a topic cannot all be short.
        #expect(run.seconds >= 5.8 - 0.05, "the last message is due 5.8 s after the first CONNACK")
        for (topic, recorded) in span {
            let times = received[topic]?.map(\.receivedAt) ?? []
            let expected = recorded / Double(times.count - 1)
            let median = Self.medianGap(times)
            #expect(median > expected * 0.5 && median < expected * 1.5, "\(topic): a median gap of \(median) s for \(expected) s")
        }
    }

    /// A replay without `loop` ends when all is sent, under a `--messages` it would never spend.
    @Test func aMessagesBudgetBeyondTheRecordingEndsWithIt() throws {
        let recording = "{\"t\":0,\"topic\":\"rp/once\",\"payload\":\"a\"}\n{\"t\":0.1,\"topic\":\"rp/once\",\"payload\":\"b\"}\n"
        let run = try replay(
            "  - name: once\n    recording: { file: rec.jsonl }\n", recording: recording, extra: ["--messages", "100"], expecting: 2)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("2 messages (no loop: true), fewer than --messages 100"), "\(run.stderr)")
        #expect(run.messages.map(\.payloadText) == ["a", "b"] && run.report["published"] as? Int == 2, "\(run.report)")
    }

    /// `speed: 2x`: the same messages in half the time; the dry run shows each at its time.
    @Test func speedTwoPlaysTwiceAsFast() throws {
        let (recording, byTopic, span) = Self.threeSources()
        let run = try replay(Self.scenario(speed: "2x"), recording: recording, expecting: 42)
        #expect(run.status == 0, "\(run.stderr)")
        let received = Dictionary(grouping: run.messages, by: \.topic)
        for (topic, payloads) in byTopic {
            #expect(received[topic]?.map(\.payloadText) == payloads, "\(topic)")
        }
        #expect(run.seconds >= 2.9 - 0.05, "the last message is due 2.9 s after the first CONNACK")
        let times = received["rp/s1/data"]?.map(\.receivedAt) ?? []
        let median = Self.medianGap(times)
        #expect(median > 0.125 * 0.5 && median < 0.125 * 1.5, "a median gap of \(median) s for 0.125 s")
        _ = span
        // The virtual clock shows the pace exactly: s3's messages at 0.15 s, then every 0.5 s.
        let folder = try RunFiles.folder(with: ["s.yaml": "devices:\n" + Self.scenario(speed: "2x"), "rec.jsonl": recording])
        defer { try? FileManager.default.removeItem(at: folder) }
        let dry = try DevsimProcess.runToCompletion(args: ["run", folder.appendingPathComponent("s.yaml").path, "--dry-run"], timeout: 30)
        #expect(dry.status == 0, "\(dry.stderr)")
        let lines = try dry.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(lines.count == 42, "a replay without loop shows all of itself")
        let s3 = lines.filter { $0["topic"] as? String == "rp/s3/data" }.compactMap { $0["at"] as? String }
        #expect(s3 == ["+00:00:00.150", "+00:00:00.650", "+00:00:01.150", "+00:00:01.650", "+00:00:02.150", "+00:00:02.650"])
    }

    /// `loop: true`: after the last message the first again, as long as the run lasts.
    @Test func aLoopStartsAgainAfterTheLastMessage() throws {
        let recording = """
            {"t":0,"topic":"rp/loop","payload":"a"}
            {"t":0.1,"topic":"rp/loop","retain":true,"payload":"b"}
            {"t":0.2,"topic":"rp/loop","payload":"c"}

            """
        let run = try replay(
            "  - name: looping\n    recording: { file: rec.jsonl, loop: true }\n", recording: recording, extra: ["--messages", "8"],
            expecting: 8)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.messages.map(\.payloadText) == ["a", "b", "c", "a", "b", "c", "a", "b"])
        #expect(run.retained == ["b"], "b alone was recorded retained")
        #expect(run.report["published"] as? Int == 8, "\(run.report)")
    }

    /// `count: 3` with `recordedID`: three devices, each its topics and ids its own, each with its
    /// own certificate over TLS (the broker takes the certificate's name as the user, and lets
    /// each write under its own name only); `timestamps: now` rewrites the recorded times.
    @Test func copiesPublishAsThemselvesOverTLSWithTimestampsOfNow() throws {
        let certificates = try TestCertificates(host: "127.0.0.1")
        defer { certificates.remove() }
        try certificates.makeDeviceCertificates(ids: ["room-1", "room-2", "room-3"])
        let plain = try Loopback.freePort()
        let broker = try MosquittoBroker(
            acl: "topic read #\ntopic write testsupport/#\npattern write rp/%u/#\n",
            extraConfig: certificates.listenerConfig + [
                "require_certificate true", "use_identity_as_username true", "listener \(plain) 127.0.0.1",
            ])
        let subscriber = try Subscriber(port: plain, topic: "rp/#", qos: 1)
        let recording = """
            {"t":0,"topic":"rp/sensor-9/climate","qos":1,"payload":"{\\"device\\":\\"sensor-9\\",\\"ts\\":\\"2025-01-01T00:00:00.000Z\\",\\"at\\":1735689600}"}
            {"t":0.2,"topic":"rp/sensor-9/climate","qos":1,"payload":"{\\"device\\":\\"sensor-9\\",\\"ts\\":\\"2025-01-01T00:00:00.200Z\\",\\"at\\":1735689600}"}

            """
        let folder = try RunFiles.folder(with: [
            "s.yaml": """
            broker:
              tls: { ca: \(certificates.ca), certificate: "\(certificates.directory)/{id}.pem", key: "\(certificates.directory)/{id}.key" }
            devices:
              - name: room
                count: 3
                id: "room-{index}"
                qos: 1
                recording: { file: rec.jsonl, recordedID: sensor-9, timestamps: now }
            """,
            "rec.jsonl": recording,
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("s.yaml").path
        let before = Date()
        let run = try DevsimRun(file, port: broker.port, report: true, timeout: 60)
        let after = Date()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(subscriber.waitFor(count: 6, timeout: 10), "\(broker.log)")
        let received = Dictionary(grouping: subscriber.messages, by: \.topic)
        #expect(Set(received.keys) == ["rp/room-1/climate", "rp/room-2/climate", "rp/room-3/climate"], "\(received.keys)")
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for (topic, messages) in received {
            #expect(messages.count == 2, "\(topic)")
            for message in messages {
                let payload = try #require(try JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any])
                let id = topic.split(separator: "/")[1]
                #expect(payload["device"] as? String == String(id), "\(message.payloadText)")
                let ts = try #require(iso.date(from: payload["ts"] as? String ?? ""), "\(message.payloadText)")
                #expect(ts >= before.addingTimeInterval(-0.001) && ts <= after, "\(message.payloadText) within the run")
                let at = try #require(payload["at"] as? Int, "\(message.payloadText)")
                #expect(Double(at) >= before.timeIntervalSince1970.rounded(.down) && Double(at) <= after.timeIntervalSince1970)
            }
        }
        let report = try RunFiles.report(file + ".json")
        #expect(report["published"] as? Int == 6 && report["acknowledged"] as? Int == 6, "\(report)")
    }

    /// `sample` and the dry run show what a copy sends: its topics and payloads rewritten, each
    /// message's retain flag as recorded.
    @Test func sampleAndTheDryRunShowTheReplayedMessages() throws {
        let folder = try RunFiles.folder(with: [
            "s.yaml": "devices:\n  - name: room\n    count: 2\n    id: \"room-{index}\"\n"
                + "    recording: { file: rec.jsonl, recordedID: s1, speed: 2x }\n",
            "rec.jsonl":
                "{\"t\":0,\"topic\":\"rp/s1/a\",\"payload\":\"s1 here\"}\n{\"t\":1,\"topic\":\"rp/s1/b\",\"retain\":true,\"payload\":\"7\"}\n",
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("s.yaml").path
        let sample = try DevsimProcess.runToCompletion(args: ["sample", file, "--seed", "1"], timeout: 30)
        #expect(sample.status == 0, "\(sample.stderr)")
        #expect(sample.stdout.contains("/rec.jsonl (2 messages over 1s, speed 2x)"), "\(sample.stdout)")
        #expect(sample.stdout.contains("+00:00:00.000  rp/room-1/a  room-1 here"), "\(sample.stdout)")
        #expect(sample.stdout.contains("+00:00:00.500  rp/room-1/b  7"), "\(sample.stdout)")
        let dry = try DevsimProcess.runToCompletion(args: ["run", file, "--dry-run", "--seed", "1"], timeout: 30)
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(
            dry.stdout.split(separator: "\n").map(String.init) == [
                #"{"at":"+00:00:00.000","topic":"rp/room-1/a","payload":"room-1 here","qos":0,"retain":false}"#,
                #"{"at":"+00:00:00.250","topic":"rp/room-2/a","payload":"room-2 here","qos":0,"retain":false}"#,
                #"{"at":"+00:00:00.500","topic":"rp/room-1/b","payload":"7","qos":0,"retain":true}"#,
                #"{"at":"+00:00:00.750","topic":"rp/room-2/b","payload":"7","qos":0,"retain":true}"#,
            ], "\(dry.stdout)")
    }

    /// Copies without `recordedID` would mix on the recorded topics: `validate` warns of it, and
    /// passes.
    @Test func copiesWithoutARecordedIDAreWarnedOf() throws {
        let folder = try RunFiles.folder(with: [
            "s.yaml": "devices:\n  - name: room\n    count: 2\n    recording: { file: rec.jsonl }\n",
            "rec.jsonl": "{\"t\":0,\"topic\":\"rp/x\",\"payload\":\"1\"}\n",
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try DevsimProcess.runToCompletion(args: ["validate", folder.appendingPathComponent("s.yaml").path], timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("warning: ") && result.stderr.contains("without 'recordedID'"), "\(result.stderr)")
    }
}
