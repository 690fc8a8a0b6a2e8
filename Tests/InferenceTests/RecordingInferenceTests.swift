import Inference
import MQTT
import Scenario
import Testing

/// The parts of `devsim record --infer`: each kind of field fitted, odd topics and payloads
/// written so they load.
@Suite struct RecordingInferenceTests {
    /// A recording of `payloads` on `topic`, one message every `interval` seconds.
    static func recording(_ topic: String, _ payloads: [String], interval: Double = 1, qos: QoS = .atMostOnce) -> Recording {
        Recording(
            messages: payloads.enumerated().map { index, payload in
                RecordedMessage(time: Double(index) * interval, topic: topic, qos: qos, payload: Array(payload.utf8))
            })
    }

    static func load(_ text: String) throws -> Scenario {
        try ScenarioLoader.load(text: text, file: "inferred.yaml", environment: [:])
    }

    /// The line of `text` that sets `field`.
    static func line(_ field: String, in text: String) -> String {
        text.split(separator: "\n").first { $0.trimmingPrefix(while: { $0 == " " }).hasPrefix(field + ":") }.map(String.init) ?? ""
    }

    @Test func anIntegerRisingByOneStepIsACounter() throws {
        let text = RecordingScenario.inferred(
            Self.recording("meters/m-1", (10..<40).map { "{\"seq\":\($0),\"x\":1}" }, interval: 2), name: "t")
        #expect(Self.line("seq", in: text).contains("{ counter: { start: 10, step: 1 } }"), "\(text)")
        #expect(Self.line("x", in: text).contains("{ constant: 1 }"), "\(text)")
        #expect(Self.line("publish", in: text).contains("1/2s"), "\(text)")
        _ = try Self.load(text)
    }

    /// Issue 38, item 21: ISO times were modelled with the generator's milliseconds whatever
    /// the recording wrote; its digits after the seconds are kept.
    @Test func isoTimesKeepTheirRecordedFractionDigits() throws {
        func fitted(_ fraction: String) throws -> String {
            let payloads = (10..<40).map { "{\"t\":\"2026-12-04T05:30:\($0)\(fraction)Z\"}" }
            let text = RecordingScenario.inferred(Self.recording("clocks/c-1", payloads), name: "t")
            _ = try Self.load(text)
            return Self.line("t", in: text)
        }
        #expect(try fitted("").contains("{ timestamp: iso8601, decimals: 0 }"))
        #expect(try fitted(".5").contains("{ timestamp: iso8601, decimals: 1 }"))
        #expect(try fitted(".123").contains("{ timestamp: iso8601 }"))
        #expect(try fitted(".123456").contains("{ timestamp: iso8601, decimals: 6 }"))
    }

    @Test func aBooleanThatHoldsIsADwellOfItsStays() throws {
        // Closed for 20 s, open for 4 s, over and over, a message a second.
        let payloads = (0..<240).map { "{\"open\":\($0 % 24 >= 20)}" }
        let text = RecordingScenario.inferred(Self.recording("doors/d-1", payloads), name: "t")
        #expect(Self.line("open", in: text).contains("{ dwell: { values: [false, true], min: [20s, 4s], max: [20s, 4s] } }"), "\(text)")
        _ = try Self.load(text)
    }

    @Test func textsDrawnAfreshAreAChoiceOfTheirCounts() throws {
        // idle, busy, idle, error, … : a value a message, changing nearly every time.
        let states = ["idle", "busy", "idle", "error", "busy", "idle"]
        let payloads = (0..<120).map { "{\"state\":\"\(states[$0 % states.count])\"}" }
        let text = RecordingScenario.inferred(Self.recording("m/m-1", payloads), name: "t")
        #expect(
            Self.line("state", in: text).contains(#"{ choice: { values: ["idle", "busy", "error"], weights: [60, 40, 20] } }"#), "\(text)")
        _ = try Self.load(text)
    }

    /// A door open by chance at each message, 15 % of the time: as a dwell of its stays it would
    /// be open for seconds in minutes, far less than recorded.
    @Test func aBooleanDrawnAfreshIsABoolOfItsShare() throws {
        var state: UInt64 = 42
        let payloads = (0..<2000).map { _ -> String in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return "{\"open\":\((state >> 33) % 100 < 15)}"
        }
        let text = RecordingScenario.inferred(Self.recording("doors/d-1", payloads), name: "t")
        let line = Self.line("open", in: text)
        #expect(line.contains("{ bool: 0.1") && !line.contains("dwell"), "\(text)")
        _ = try Self.load(text)
    }

    @Test func numbersAndMissingKeys() throws {
        // A walk: each value near the last; absent from one message in ten.
        var value = 20.0
        let payloads = (0..<200).map { index -> String in
            value += index % 7 < 3 ? 0.3 : -0.25
            return index % 10 == 0 ? "{}" : "{\"t\":\(RecordingScenario.number(value, decimals: 2))}"
        }
        let text = RecordingScenario.inferred(Self.recording("s/s-1", payloads), name: "t")
        let line = Self.line("t", in: text)
        #expect(line.contains("randomWalk"), "\(text)")
        #expect(line.contains("faults: { dropout: { probability: 0.1 } }"), "\(text)")
        _ = try Self.load(text)
    }

    @Test func payloadsThatAreNoJSONObjectLoad() throws {
        let onOff = Self.recording("plugs/p-1/state", (0..<60).map { $0 % 20 < 15 ? "ON" : "OFF" })
        let text = RecordingScenario.inferred(onOff, name: "t")
        #expect(text.contains("template: \"{{value}}\""), "\(text)")
        #expect(Self.line("value", in: text).contains("dwell"), "\(text)")
        _ = try Self.load(text)

        var binary = Recording(
            messages: (0..<5).map { RecordedMessage(time: Double($0), topic: "cam/c-1", payload: [0xFF, 0xD8, 0xFF, 0, 1, 2]) })
        var raw = RecordingScenario.inferred(binary, name: "t")
        #expect(raw.contains("style: raw") && raw.contains("{ bytes: { size: 6, content: random } }"), "\(raw)")
        _ = try Self.load(raw)
        binary.messages[0].payload = Array("21.5".utf8)
        raw = RecordingScenario.inferred(binary, name: "t")
        #expect(raw.contains("1 messages of another kind"), "\(raw)")
    }

    /// A topic with YAML's own characters is written so it reads back as it was recorded.
    @Test func oddTopicsAreQuoted() throws {
        let topic = "a: b/c 'd' \"e\"/- f/x-1"
        let recording = Self.recording(topic, ["{\"v\":1}", "{\"v\":2}"], qos: .atLeastOnce)
        let scenario = try Self.load(RecordingScenario.inferred(recording, name: "odd: #name"))
        #expect(scenario.name == "odd: #name")
        #expect(scenario.groups.first?.topic.render(name: "x-1", index: 1, id: "x-1") == topic)
        #expect(scenario.groups.first?.qos == .atLeastOnce)

        let replay = RecordingScenario.replay(recording, file: "my recording.jsonl", name: "odd")
        #expect(replay.contains(#"topics: "a: b/c 'd' \"e\"/- f/x-1""#), "\(replay)")
        #expect(
            replay.contains(#"recordedID: "x-1""#) && replay.contains("qos: 1 ") && replay.contains(#"file: "my recording.jsonl""#),
            "\(replay)")
    }

    /// Found by review: `q/a{id}b/1` was inferred as `q/a{id}b/{id}`, which publishes on `q/a1b/1`.
    @Test func aTopicThatAScenarioCannotWriteIsLeftOutAndSaidSo() throws {
        let recording = Recording(
            messages: Self.recording("q/a{id}b/1", ["{\"v\":1}", "{\"v\":2}"]).messages
                + Self.recording("q/c${HOME}/2", ["{\"v\":1}", "{\"v\":2}"]).messages
                + Self.recording("q/plain/3", ["{\"v\":1}", "{\"v\":2}"]).messages)
        let text = RecordingScenario.inferred(recording, name: "braces")
        #expect(text.contains(#"# left out: "q/a{id}b/1""#) && text.contains(#"# left out: "q/c${HOME}/2""#), "\(text)")
        let scenario = try Self.load(text)
        #expect(scenario.groups.map { $0.topic.render(name: "x", index: 1, id: "3") } == ["q/plain/3"])
    }
}
