import Foundation
import Inference
import MQTT
import Scenario
import Simulator
import Testing

/// `devsim record --infer` (issue 30, item 3): a recording of a shipped scenario's output,
/// inferred back into a scenario, loads, and `devsim sample` of it looks like the recording:
/// the same topics, intervals, and each field's range and mean close. The recordings are made
/// here from the shipped scenarios' own sample (seeded: the same every run), not live.
@Suite struct InferredScenarioTests {
    /// What every device of `scenario` publishes over `span` of virtual time, as `devsim
    /// sample` shows it, as a recording.
    static func sampled(_ scenario: Scenario, span: Duration, seed: UInt64) -> Recording {
        let plan = FleetPlan(scenarios: [scenario], settings: RunSettings(seed: seed))
        var messages: [RecordedMessage] = []
        for device in plan.connections.flatMap(\.devices) {
            Sample.forEachTick(of: device, in: plan, seed: seed, count: nil, span: span, wallStart: 1_764_800_000) { tick in
                guard !tick.isBeside else { return }
                messages.append(
                    RecordedMessage(
                        time: tick.seconds, topic: device.topic, qos: device.qos, retain: device.retain, payload: Array(tick.payload.utf8)))
            }
        }
        return Recording(
            messages: messages.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element))
    }

    static func shipped(_ name: String) throws -> Scenario {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scenarios/\(name)").path
        return try ScenarioLoader.load(file: file, environment: [:])
    }

    /// The recording's inferred scenario, loaded; and its own sample over the same span.
    static func inferredAndSampled(_ recording: Recording, span: Duration) throws -> (text: String, sample: Recording) {
        let text = RecordingScenario.inferred(recording, name: "inferred")
        let inferred = try ScenarioLoader.load(text: text, file: "inferred.yaml", environment: [:])
        return (text, sampled(inferred, span: span, seed: 7))
    }

    @Test func sensorRoomInferredLooksLikeItsRecording() throws {
        let recording = Self.sampled(try Self.shipped("sensor-room.yaml"), span: .seconds(600), seed: 42)
        let (text, sample) = try Self.inferredAndSampled(recording, span: .seconds(600))
        let fit = RecordingFit(recorded: recording, generated: sample)
        #expect(fit.problems(tolerance: 0.25) == [], "\(text)\n\(fit.table())")
    }

    /// A day of a building: rooms whose climate follows the day, doors that open by chance and
    /// count the people through them; two kinds of device, 40 and 2 of them.
    @Test func smartBuildingDayInferredLooksLikeItsRecording() throws {
        let recording = Self.sampled(try Self.shipped("smart-building.yaml"), span: .seconds(86400), seed: 42)
        let (text, sample) = try Self.inferredAndSampled(recording, span: .seconds(86400))
        let fit = RecordingFit(recorded: recording, generated: sample)
        #expect(fit.problems(tolerance: 0.25) == [], "\(text)\n\(fit.table())")
    }
}

/// The README's side-by-side table: a live recording of `scenarios/sensor-room.yaml` (a minute
/// of `devsim run` captured by `mosquitto_sub -F '%U %q %r %t %p'`), inferred, sampled for as
/// long, compared.
@Suite struct InferredReadmeTableTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theReadmeShowsTheRecordingBesideItsInferredScenario() throws {
        let recording = try Recording.load(path: Self.root.appendingPathComponent("examples/sensor-room.recording.jsonl").path)
        let (text, sample) = try InferredScenarioTests.inferredAndSampled(recording, span: .seconds(60))
        let fit = RecordingFit(recorded: recording, generated: sample)
        #expect(fit.problems(tolerance: 0.25) == [], "\(text)\n\(fit.table())")
        let readme = try String(contentsOfFile: Self.root.appendingPathComponent("README.md").path, encoding: .utf8)
        #expect(
            readme.contains(
                fit.table(recordedTitle: "recorded from scenarios/sensor-room.yaml", generatedTitle: "sampled from the inferred scenario")),
            "the README's table is\n\(fit.table(recordedTitle: "recorded from scenarios/sensor-room.yaml", generatedTitle: "sampled from the inferred scenario"))\nof\n\(text)"
        )
    }
}
