import Foundation
import MQTT
import Testing

@testable import Scenario

/// Issue 30: the recording file, read with the problems at their file, line and column, and
/// written so that reading it back gives the same messages, payloads byte for byte. The reading
/// side is checked against Foundation's JSON parser, not against the writer alone.
@Suite struct RecordingFileTests {
    func problems(_ text: String) -> [String] {
        do {
            _ = try Recording.parse(Array(text.utf8), file: "r.jsonl")
            return ["read without errors"]
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    @Test func aRecordingReadsEachMessageInTimeOrder() throws {
        let text = """
            # a comment, then a blank line

            {"t":0.5,"topic":"a/1","qos":1,"retain":true,"payload":"{\\"v\\":1}"}
            {"t":0.25,"topic":"a/2","payloadBase64":"AAH/"}
            {"t":0.5,"topic":"a/3","payload":"second at 0.5"}\r
            """
        let recording = try Recording.parse(Array(text.utf8), file: "r.jsonl")
        #expect(recording.messages.map(\.topic) == ["a/2", "a/1", "a/3"])
        #expect(recording.messages.map(\.line) == [4, 3, 5])
        #expect(recording.messages[0].payload == [0, 1, 255] && recording.messages[0].text == nil)
        #expect(recording.messages[1].qos == .atLeastOnce && recording.messages[1].retain)
        #expect(recording.messages[1].payload == Array(#"{"v":1}"#.utf8))
        #expect(recording.messages[2].qos == .atMostOnce && !recording.messages[2].retain)
        #expect(recording.topics == ["a/2", "a/1", "a/3"] && recording.span == 0.25)
    }

    @Test func eachProblemIsAtItsLineAndColumn() {
        let text = """
            {"t":1,"topic":"a","payload":"x"}
            {"t":1,"topic":"a","paylod":"x"}
            {"t":-1,"topic":"a","payload":"x"}
            {"t":1,"topic":"a/#","payload":"x"}
            {"t":1,"topic":"a","qos":3,"payload":"x"}
            {"t":1,"topic":"a","retain":1,"payload":"x"}
            {"t":1,"topic":"a","payload":"x","payloadBase64":"AA=="}
            {"t":1,"topic":"a","payloadBase64":"not base64!"}
            [1,2]
            {"t":1,"topic":"a","payload":
            {"topic":"a","payload":"x"}
            {"t":1.5,"topic":"a/x","payload":"x", }
            {"t":1,"topic":"a","topic":"b","payload":"x"}
            {"t":1e400,"topic":"a","payload":"x"}
            """
        #expect(
            problems(text) == [
                "r.jsonl:2:20: unknown key 'paylod'; did you mean 'payload'? (a message has t, topic, qos, retain, payload, payloadBase64)",
                "r.jsonl:3:2: 't' is the seconds from the start of the recording, a number 0 or more",
                "r.jsonl:4:8: 'topic' is a topic name: not empty, without the wildcards '+' and '#'",
                "r.jsonl:5:20: 'qos' is 0, 1 or 2",
                "r.jsonl:6:20: 'retain' is true or false",
                "r.jsonl:7:34: a message has 'payload' or 'payloadBase64', not both",
                "r.jsonl:8:20: 'payloadBase64' is the payload's bytes in base64",
                "r.jsonl:9:1: each line is one JSON object, {\"t\":…,\"topic\":…,\"payload\":…}",
                "r.jsonl:10:30: not valid JSON: the line ends before its object does",
                "r.jsonl:11:1: 't' is required: the seconds from the start",
                // Foundation's reader took this trailing comma (found by review).
                "r.jsonl:12:39: not valid JSON here",
                "r.jsonl:13:20: 'topic' is given twice",
                "r.jsonl:14:11: not valid JSON here",
            ])
    }

    @Test func aRecordingWithoutMessagesIsRefused() {
        #expect(problems("# nothing\n\n") == ["r.jsonl:3:1: the recording holds no message"])
    }

    @Test func aFileThatIsNotThereOrNotAFileIsRefused() {
        #expect(throws: ScenarioError.self) { try Recording.load(path: "/nonexistent/recording.jsonl") }
        do {
            _ = try Recording.load(path: "/dev/null")
            Issue.record("/dev/null was read")
        } catch {
            #expect(error.description.contains("it is not a file"))
        }
    }

    /// Written, each line is a JSON object Foundation reads to the same topic and payload; read
    /// back, the messages are the same, whatever bytes the payload holds.
    @Test func writtenLinesReadBackExactly() throws {
        var generator = SystemRandomNumberGenerator()
        var messages: [RecordedMessage] = [
            RecordedMessage(
                time: 0, topic: "t/\"quoted\"\\", qos: .exactlyOnce, retain: true, payload: Array("a\u{0}b\u{7F}\n\t\"é😀".utf8)),
            RecordedMessage(time: 1.000001, topic: "t/bin", payload: [0xFF, 0xFE, 0, 1]),
            RecordedMessage(time: 2.5, topic: "t/empty", payload: []),
        ]
        for index in 0..<200 {
            let payload = (0..<Int.random(in: 0..<40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            messages.append(RecordedMessage(time: 3 + Double(index) / 1000, topic: "t/\(index)", payload: payload))
        }
        var text = Recording.header(source: "mqtt://127.0.0.1:1883", topics: ["t/#"], started: "2026-12-04T05:30:00Z")
        for message in messages {
            let line = message.jsonLine
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["topic"] as? String == message.topic)
            if let payload = object["payload"] as? String {
                #expect(Array(payload.utf8) == message.payload)
            } else {
                #expect(object["payloadBase64"].flatMap { Data(base64Encoded: $0 as? String ?? "") }.map(Array.init) == message.payload)
            }
            text += line + "\n"
        }
        let read = try Recording.parse(Array(text.utf8), file: "r.jsonl")
        // Times are written to the microsecond.
        #expect(read.messages.count == messages.count)
        for (back, message) in zip(read.messages, messages) {
            #expect(abs(back.time - message.time) < 1e-9)
            #expect(back.topic == message.topic && back.qos == message.qos && back.retain == message.retain)
            #expect(back.payload == message.payload)
        }
    }
}
